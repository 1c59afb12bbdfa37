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
 * is not served here). Most often it is the thread's newest, which the saver keeps at hand
 * (PostgreSQL: a 200 kB state read in ~4 ms less than by its id); an older one is read by its
 * id. A checkpoint no longer kept (a prune keeps only the newest) gives the newest values.
 */
export async function checkpointValues(
  ctx: ServerContext,
  thread: ThreadRecord,
  checkpointId: string,
): Promise<Json | null> {
  const graph = graphOf(ctx, thread.graph_id);
  if (!graph) return null;
  const newest = await graph.getState({ configurable: { thread_id: thread.thread_id } });
  if (checkpointIdOf(newest) === checkpointId) return newest.values as Json;
  const at = await graph.getState({ configurable: { thread_id: thread.thread_id, checkpoint_id: checkpointId } });
  return (checkpointIdOf(at) === checkpointId ? at : newest).values as Json;
}
