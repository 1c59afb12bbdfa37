import type { AssistantRecord, Json, ThreadRecord } from "../store/records.js";

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
