import { NS_SEP, PUSH } from "../constants.js";

/**
 * The stream namespace of the graph whose node made a callback event ("" for the root graph):
 * the node's checkpoint namespace less its own segment, and one more per `task()` call it is
 * nested in (their paths end in `true`). Undefined for an event outside any node.
 */
function eventNamespace(metadata: Record<string, unknown> | undefined): string | undefined {
  const checkpointNs = (metadata?.langgraph_checkpoint_ns ?? metadata?.checkpoint_ns) as string | undefined;
  if (!checkpointNs) return undefined;
  let segments = 1;
  let path = metadata?.langgraph_path;
  while (Array.isArray(path) && path[0] === PUSH && path[path.length - 1] === true) {
    segments++;
    path = path[1];
  }
  return checkpointNs.split(NS_SEP).slice(0, -segments).join(NS_SEP);
}

/**
 * Where a stream shows a callback event: the namespace it is told under, or undefined when the
 * stream does not show it (outside any node, or in a subgraph the stream leaves out).
 */
export type EventPlace = (metadata: Record<string, unknown> | undefined) => string | undefined;

/** Classic streams: under the graph that made the event, subgraphs only when asked for. */
export function graphPlace(subgraphs: boolean): EventPlace {
  return (metadata) => {
    const ns = eventNamespace(metadata);
    return ns !== undefined && (ns === "" || subgraphs) ? ns : undefined;
  };
}

/** streamEvents v3: under the node's own checkpoint namespace (`agent:<task id>`), every level. */
export const nodePlace: EventPlace = (metadata) =>
  ((metadata?.langgraph_checkpoint_ns ?? metadata?.checkpoint_ns) as string | undefined) || undefined;
