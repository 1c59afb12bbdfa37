/**
 * `POST /threads` with `supersteps`: a thread pre-filled by state updates, as LangGraph Server
 * makes it: each superstep's updates applied together (`bulkUpdateState`), as the tasks of one
 * step are, so that `next` follows from all of them; an update's `command` (`update`, `goto`)
 * is written as its node's returned Command would be.
 */
import { graphOf, type ServerContext } from "../context.js";
import { ServerError } from "../errors.js";
import { commandOf } from "../runs/input.js";
import type { ThreadRecord } from "../store/records.js";

interface Superstep {
  updates: Array<{ values?: unknown; command?: { update?: unknown; goto?: unknown } | null; as_node: string }>;
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
  await graph.bulkUpdateState(
    { configurable: { thread_id: thread.thread_id } },
    steps.map((step) => ({
      updates: step.updates.map((update) => ({
        values: update.command ? commandOf(update.command) : (update.values ?? null),
        asNode: update.as_node,
      })),
    })),
  );
}
