/** A thread's values read from one of its checkpoints, for records that keep them there (store/thread-values.ts). */
import type { StateSnapshot } from "@interlude/core";
import { graphOf, type ServerContext } from "../context.js";
import type { Json, ThreadRecord } from "../store/records.js";

/** The id of the checkpoint a snapshot was read from. */
export function checkpointIdOf(snapshot: StateSnapshot): string | undefined {
  return snapshot.config?.configurable?.checkpoint_id as string | undefined;
}

/**
 * The values of `thread`'s checkpoint `checkpointId`, as getState gives them (null: its graph
 * is not served here). A checkpoint no longer kept (a prune keeps only the newest) gives the
 * thread's newest values.
 */
export async function checkpointValues(
  ctx: ServerContext,
  thread: ThreadRecord,
  checkpointId: string,
): Promise<Json | null> {
  const graph = graphOf(ctx, thread.graph_id);
  if (!graph) return null;
  const at = await graph.getState({ configurable: { thread_id: thread.thread_id, checkpoint_id: checkpointId } });
  if (checkpointIdOf(at) === checkpointId) return at.values as Json;
  return (await graph.getState({ configurable: { thread_id: thread.thread_id } })).values as Json;
}
