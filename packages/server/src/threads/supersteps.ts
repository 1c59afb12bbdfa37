/** `POST /threads` with `supersteps`: a thread pre-filled by state updates, one per step. */
import { graphOf, type ServerContext } from "../context.js";
import { ServerError } from "../errors.js";
import type { ThreadRecord } from "../store/records.js";

interface Superstep {
  updates: Array<{ values?: unknown; command?: unknown; as_node: string }>;
}

export async function applySupersteps(ctx: ServerContext, thread: ThreadRecord, steps: Superstep[]): Promise<void> {
  const graph = graphOf(ctx, thread.graph_id);
  if (!graph)
    throw new ServerError(
      "GRAPH_REQUIRED",
      "supersteps need a graph: pass graph_id (metadata.graph_id) when creating the thread.",
      { field: "metadata.graph_id" },
      422, // a field of this request is missing, not a state of the thread
    );
  for (const step of steps) {
    for (const update of step.updates)
      await graph.updateState(
        { configurable: { thread_id: thread.thread_id } },
        (update.values ?? null) as never,
        update.as_node,
      );
  }
}
