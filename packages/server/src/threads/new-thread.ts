import type { AssistantRecord, Json, ThreadRecord } from "../store/records.js";
import type { StoreTx } from "../store/store.js";
import { setThreadTtl } from "../store/thread-ttl.js";
import type { ThreadTtl } from "./ttl.js";

export function newThread(threadId: string, metadata: Json = {}, assistant?: AssistantRecord): ThreadRecord {
  const now = new Date().toISOString();
  const graphId = assistant?.graph_id ?? (typeof metadata.graph_id === "string" ? metadata.graph_id : null);
  return {
    thread_id: threadId,
    created_at: now,
    updated_at: now,
    state_updated_at: now,
    metadata,
    status: "idle",
    values: null,
    interrupts: {},
    error: null,
    config: {},
    graph_id: graphId,
    assistant_id: assistant?.assistant_id ?? null,
  };
}

/**
 * Inserts the thread with its TTL (counted from `now`) through `tx`, in its transaction, so that
 * no thread is left without the TTL it was given; false when a thread has that id already.
 */
export async function insertThreadIn(
  tx: StoreTx,
  thread: ThreadRecord,
  ttl: ThreadTtl | undefined,
  now: number,
): Promise<boolean> {
  const inserted = await tx.insertThread(thread);
  if (inserted && ttl) await setThreadTtl(tx.db, thread.thread_id, ttl, now);
  return inserted;
}
