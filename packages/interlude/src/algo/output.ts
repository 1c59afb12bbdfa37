/**
 * Turns what a node returned (an update, a `Command`, nothing) into channel writes, and adds
 * the writes of its edges and branches. Pure, apart from calling the user's branch functions.
 */

import { END, TASKS } from "../constants.js";
import { InvalidUpdateError } from "../errors/graph.js";
import { type Command, isCommand } from "../primitives/command.js";
import { isSend } from "../primitives/send.js";
import type { BranchSpec, GraphSpec, StaticWrite } from "./spec.js";
import { triggerChannel } from "./spec.js";
import type { SendPacket } from "./tasks.js";
import type { Write } from "./writes.js";

/**
 * Keys outside the state are dropped, as LangGraph does: a subgraph called from a node returns
 * its own private keys too, and a state read from elsewhere may carry extra fields.
 */
function stateWrites(spec: GraphSpec, entries: Iterable<[string, unknown]>, out: Write[]): void {
  for (const [key, value] of entries) if (spec.stateKeySet.has(key)) out.push([key, value]);
}

function gotoWrites(spec: GraphSpec, node: string, targets: readonly unknown[], out: Write[]): void {
  for (const target of targets) {
    if (isSend(target)) {
      if (!spec.nodes.has(target.node))
        throw new InvalidUpdateError(
          `Node "${node}" sent to unknown node "${target.node}". Known nodes: ${[...spec.nodes.keys()].join(", ")}.`,
        );
      const packet: SendPacket = { node: target.node, args: target.args };
      if (target.timeout) packet.timeout = target.timeout;
      out.push([TASKS, packet]);
    } else if (typeof target === "string") {
      if (target === END) continue;
      if (!spec.nodes.has(target))
        throw new InvalidUpdateError(
          `Node "${node}" routed to unknown node "${target}". Known nodes: ${[...spec.nodes.keys()].join(", ")}.`,
        );
      out.push([triggerChannel(target), true]);
    } else {
      throw new InvalidUpdateError(
        `Node "${node}" routed to ${JSON.stringify(target)}; expected a node name or a Send.`,
      );
    }
  }
}

/** Writes for a node's return value. */
export function outputWrites(spec: GraphSpec, node: string, output: unknown): Write[] {
  const out: Write[] = [];
  if (output === undefined || output === null) return out;
  // A one-channel state (MessageGraph): whatever is returned is its update.
  if (spec.rootKey && !isCommand(output)) return [[spec.rootKey, output]];
  if (isCommand(output)) {
    stateWrites(spec, (output as Command).updateEntries(), out);
    gotoWrites(spec, node, (output as Command).goto, out);
    return out;
  }
  // As LangGraph: a list holding a Command is a list of updates (a ToolNode's, when tools return Commands).
  if (Array.isArray(output) && output.some(isCommand)) {
    for (const item of output) out.push(...outputWrites(spec, node, item));
    return out;
  }
  if (typeof output !== "object" || Array.isArray(output)) {
    throw new InvalidUpdateError(
      `Node "${node}" returned ${JSON.stringify(output)}; expected an object of state updates, a Command, or nothing.`,
      "INVALID_GRAPH_NODE_RETURN_VALUE",
    );
  }
  // Own keys by for-in rather than Object.entries: no pair arrays for every update of every step.
  const update = output as Record<string, unknown>;
  for (const key in update) if (Object.hasOwn(update, key) && spec.stateKeySet.has(key)) out.push([key, update[key]]);
  return out;
}

export function edgeWrites(edges: readonly StaticWrite[], out: Write[]): void {
  for (const edge of edges) out.push([edge.channel, edge.value]);
}

/** The state a branch sees: the step's input state with the node's own writes applied. */
export function stateAfterWrites(
  spec: GraphSpec,
  state: Record<string, unknown>,
  writes: readonly Write[],
): Record<string, unknown> {
  let next: Record<string, unknown> | undefined;
  for (const [key, value] of writes) {
    if (!spec.stateKeySet.has(key)) continue;
    next ??= { ...state };
    const reducer = spec.reducers.get(key);
    next[key] = reducer && key in next ? reducer(next[key], value) : value;
  }
  return next ?? state;
}

function resolveBranchTargets(branch: BranchSpec, result: unknown): unknown[] {
  const list = Array.isArray(result) ? result : [result];
  if (!branch.pathMap) return list;
  return list.map((r) => (isSend(r) ? r : (branch.pathMap![String(r)] ?? r)));
}

/**
 * Evaluates conditional edges and appends their writes, in order. Returns a promise only when
 * a branch function does (most are synchronous, and a step then saves a turn).
 */
export function branchWrites(
  spec: GraphSpec,
  node: string,
  branches: readonly BranchSpec[],
  state: Record<string, unknown>,
  config: unknown,
  out: Write[],
  from = 0,
): Promise<void> | undefined {
  for (let i = from; i < branches.length; i++) {
    const branch = branches[i]!;
    const result = branch.path(state, config);
    if (result instanceof Promise)
      return result.then((resolved) => {
        gotoWrites(spec, node, resolveBranchTargets(branch, resolved), out);
        return branchWrites(spec, node, branches, state, config, out, i + 1);
      });
    gotoWrites(spec, node, resolveBranchTargets(branch, result), out);
  }
  return undefined;
}
