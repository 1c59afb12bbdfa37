/**
 * Which graph owns a checkpoint namespace: `getState`, `getStateHistory` and `updateState` of a
 * parent, given a subgraph's `checkpoint_ns` (`child:<task id>|grandchild:<task id>`, or `child`
 * for a subgraph compiled with `checkpointer: true`), read and write with that subgraph's schema.
 */

import type { GraphInternals } from "../algo/spec.js";
import { NS_END, NS_SEP } from "../constants.js";

/** `node:<task id>` and `node:<task id>~2` (a second call in one task) both name `node`. */
function nodeOf(segment: string): string {
  const end = segment.indexOf(NS_END);
  return end === -1 ? segment : segment.slice(0, end);
}

/**
 * The subgraph at `ns` under `root`, or `root` when `ns` is empty or leads through a node that
 * is not a compiled graph (a function that invokes one: its schema cannot be known from here).
 */
export function graphAtNamespace(root: GraphInternals, ns: string | undefined): GraphInternals {
  if (!ns) return root;
  let graph = root;
  for (const segment of ns.split(NS_SEP)) {
    const subgraph = graph.spec.nodes.get(nodeOf(segment))?.subgraph;
    if (!subgraph) return root;
    graph = subgraph;
  }
  return graph;
}
