/**
 * Validates a builder and turns it into the `GraphSpec` the runtime works on: one channel
 * per state key, one trigger channel per node, one barrier per join.
 */

import {
  type BranchSpec,
  type GraphSpec,
  indexTriggers,
  joinChannel,
  type NodeSpec,
  type StaticWrite,
  triggerChannel,
} from "../algo/spec.js";
import { AfterFinish } from "../channels/after-finish.js";
import type { Channel } from "../channels/base.js";
import type { Reducer } from "../channels/binop.js";
import { BinaryOperatorAggregate } from "../channels/binop.js";
import { isDeltaChannel } from "../channels/delta.js";
import { EphemeralValue } from "../channels/ephemeral.js";
import { channelFactory, InstanceRoles, isChannel } from "../channels/instance.js";
import { LastValue } from "../channels/last-value.js";
import { NamedBarrierValue } from "../channels/named-barrier.js";
import { Topic } from "../channels/topic.js";
import { Trigger } from "../channels/trigger.js";
import { isUntracked } from "../channels/untracked.js";
import { END, START, TASKS } from "../constants.js";
import { GraphValidationError, UnreachableNodeError } from "../errors/graph.js";
import { everyName, refuseUnknownGraphOptions } from "../errors/options.js";
import { needsLangChain } from "../messages/reducer.js";
import type { CompileOptions } from "./compiled.js";
import type { GraphDeclaration } from "./declaration.js";
import { DEFAULT_HANDLER, hasErrorHandler, resolvePolicies } from "./node-policies.js";
import { inputMapper, validatingNode } from "./state-validation.js";

function known(builder: GraphDeclaration, name: string, role: string): void {
  if (!Object.hasOwn(builder.nodes, name)) {
    const list = Object.keys(builder.nodes).join(", ") || "(none)";
    throw new GraphValidationError(`${role} "${name}" is not a node of this graph. Nodes: ${list}.`, name);
  }
}

/** `compile()`'s options by name. */
export const COMPILE_OPTIONS = everyName<keyof CompileOptions>({
  checkpointer: 1,
  store: 1,
  cache: 1,
  interruptBefore: 1,
  interruptAfter: 1,
  name: 1,
  description: 1,
  resumeMatching: 1,
  transformers: 1,
});

/** Refuses an option `compile()` does not take (GraphValidationError). */
export function checkCompileOptions(options: CompileOptions): void {
  refuseUnknownGraphOptions("compile()", options, COMPILE_OPTIONS);
}

/** Refuses a declaration that could not run (unknown nodes, no entry point, unreachable nodes, bad breakpoints). */
export function validateDeclaration(
  builder: GraphDeclaration,
  options: Pick<CompileOptions, "interruptBefore" | "interruptAfter">,
): void {
  if (Object.keys(builder.nodes).length === 0)
    throw new GraphValidationError("The graph has no nodes. Add one with addNode(name, fn).");
  // As LangGraph.js: the default error handler's updates stream under this name.
  if (builder.nodeDefaults?.errorHandler && Object.hasOwn(builder.nodes, DEFAULT_HANDLER))
    throw new GraphValidationError(
      `"${DEFAULT_HANDLER}" names the default error handler (setNodeDefaults({ errorHandler })): give the node another name.`,
      DEFAULT_HANDLER,
    );
  for (const { sources, target } of builder.edges) {
    for (const source of sources) {
      if (source === END) throw new GraphValidationError(`An edge starts at END; END has no outgoing edges.`, source);
      if (source !== START) known(builder, source, "Edge source");
    }
    if (target === START)
      throw new GraphValidationError(
        `An edge from "${sources.join(", ")}" points to START; START cannot be a target.`,
        target,
      );
    if (target !== END) known(builder, target, `Edge target (from "${sources.join(", ")}")`);
  }
  for (const branch of builder.branches) {
    if (branch.source !== START) known(builder, branch.source, "Conditional edge source");
    for (const target of Object.values(branch.pathMap ?? {})) {
      if (target !== END) known(builder, target, `Conditional edge target (from "${branch.source}")`);
    }
  }
  const hasEntry =
    builder.edges.some((e) => e.sources.includes(START)) || builder.branches.some((b) => b.source === START);
  if (!hasEntry) {
    throw new GraphValidationError(
      `The graph has no entry point. Add an edge from START: addEdge(START, "${Object.keys(builder.nodes)[0]}").`,
      START,
    );
  }
  for (const [which, list] of [
    ["interruptBefore", options.interruptBefore],
    ["interruptAfter", options.interruptAfter],
  ] as const) {
    if (!list || list === "*") continue;
    for (const name of list) known(builder, name, `${which} breakpoint`);
  }
  for (const [name, node] of Object.entries(builder.nodes)) {
    for (const end of node.options.ends ?? []) if (end !== END) known(builder, end, `"ends" of node "${name}"`);
  }
  refuseUnreachable(builder);
}

/** As LangGraph does: a node that nothing leads to could never run. A branch without a path map may lead anywhere. */
function refuseUnreachable(builder: GraphDeclaration): void {
  if (hasErrorHandler(Object.values(builder.nodes), builder.nodeDefaults)) return;
  const reached = new Set<string>();
  for (const { target } of builder.edges) reached.add(target);
  for (const branch of builder.branches) {
    if (branch.pathMap) for (const target of Object.values(branch.pathMap)) reached.add(target);
    else for (const name of Object.keys(builder.nodes)) if (name !== branch.source) reached.add(name);
  }
  for (const node of Object.values(builder.nodes)) for (const end of node.options.ends ?? []) reached.add(end);
  for (const name of Object.keys(builder.nodes)) {
    if (reached.has(name)) continue;
    throw new UnreachableNodeError(
      `Node "${name}" is not reachable: no edge or conditional edge leads to it. Add one, or, if a node ` +
        `routes to it with Command({ goto: "${name}" }), declare it: addNode(source, fn, { ends: ["${name}"] }).`,
      name,
    );
  }
}

function stateChannels(spec: Record<string, { reducer?: Reducer<any, any>; default?: () => unknown }>) {
  const factories = new Map<string, () => Channel>();
  const reducers = new Map<string, Reducer<any, any>>();
  /** Keys whose channel, given as an instance, the loop treats apart. */
  const roles = new InstanceRoles();
  for (const [key, channel] of Object.entries(spec)) {
    if (isUntracked(channel)) {
      factories.set(key, () => channel.fromCheckpoint());
      continue;
    }
    if (isDeltaChannel(channel)) {
      factories.set(key, () => channel.fromCheckpoint(undefined));
      // What a conditional edge sees of a node's writes: each folded on its own.
      reducers.set(
        key,
        Object.assign((state: unknown, write: unknown) => channel.reducer(state, [write]), channel.reducer),
      );
      continue;
    }
    // A channel instance (`new Topic()`, `new EphemeralValue()`, ...) is the key's channel, as in LangGraph.js.
    if (isChannel(channel)) {
      factories.set(key, channelFactory(channel, key));
      if (channel instanceof BinaryOperatorAggregate) reducers.set(key, channel.reducer);
      roles.add(key, channel);
      continue;
    }
    const { reducer, default: initial } = channel ?? {};
    if (reducer) {
      reducers.set(key, reducer);
      factories.set(key, () => new BinaryOperatorAggregate(reducer, initial));
    } else if (initial) {
      factories.set(key, () => new LastValue(key).fromCheckpoint(initial()));
    } else factories.set(key, () => new LastValue(key));
  }
  return { factories, reducers, roles };
}

export function buildSpec(builder: GraphDeclaration, options: CompileOptions): GraphSpec {
  checkCompileOptions(options);
  validateDeclaration(builder, options);
  const stateKeys = Object.keys(builder.spec);
  const { factories, reducers, roles } = stateChannels(builder.spec);
  const ephemeral: string[] = [TASKS, START, ...roles.clearing];
  factories.set(TASKS, () => new Topic());
  factories.set(START, () => new EphemeralValue(START));

  const triggers = new Map<string, string[]>();
  const writesOf = new Map<string, StaticWrite[]>([[START, []]]);
  const deferred = new Set(
    Object.values(builder.nodes)
      .filter((n) => n.options.defer)
      .map((n) => n.name),
  );
  const finishChannels: string[] = [...roles.finishing];
  for (const name of Object.keys(builder.nodes)) {
    const channel = triggerChannel(name);
    if (deferred.has(name)) {
      // Not ephemeral: the trigger waits, possibly several steps, for the run to finish.
      factories.set(channel, () => new AfterFinish(new Trigger()));
      finishChannels.push(channel);
    } else {
      factories.set(channel, () => new Trigger());
      ephemeral.push(channel);
    }
    triggers.set(name, [channel]);
    writesOf.set(name, []);
  }
  for (const { sources, target } of builder.edges) {
    if (target === END) continue;
    if (sources.length === 1) {
      writesOf.get(sources[0]!)!.push({ channel: triggerChannel(target), value: true });
      continue;
    }
    const channel = joinChannel(sources, target);
    const names = new Set(sources);
    if (deferred.has(target)) {
      factories.set(channel, () => new AfterFinish(new NamedBarrierValue(names)));
      finishChannels.push(channel);
    } else factories.set(channel, () => new NamedBarrierValue(names));
    triggers.get(target)!.push(channel);
    for (const source of sources) writesOf.get(source)!.push({ channel, value: source });
  }
  const root = builder.rootKey;
  const branchesOf = new Map<string, BranchSpec[]>();
  for (const branch of builder.branches) {
    const list = branchesOf.get(branch.source) ?? [];
    const { path } = branch;
    list.push({
      path: root ? (state, config) => path(state[root], config) : path,
      pathMap: branch.pathMap,
      runnable: branch.runnable,
    });
    branchesOf.set(branch.source, list);
  }

  // The input is a task of its own, as in LangGraph: the run's input is written to the
  // `__start__` channel and saved in the "input" checkpoint, and the `__start__` task maps it
  // to state writes and follows the edges from START.
  const start: NodeSpec = {
    name: START,
    run: inputMapper(builder),
    triggers: [START],
    edges: writesOf.get(START)!,
    branches: branchesOf.get(START) ?? [],
  };
  const nodes = new Map<string, NodeSpec>([[START, start]]);
  for (const [name, definition] of Object.entries(builder.nodes)) {
    const action = definition.action;
    const isGraph = typeof action !== "function";
    const node: NodeSpec = {
      name,
      run: isGraph ? (input, config) => action.invoke(input, config) : validatingNode(name, action, builder.validators),
      triggers: triggers.get(name)!,
      edges: writesOf.get(name)!,
      branches: branchesOf.get(name) ?? [],
      ...resolvePolicies(name, definition.options, builder.nodeDefaults),
      inputKeys: definition.inputKeys ?? builder.sharedKeys,
      ends: definition.options.ends,
      subgraph: isGraph ? action : undefined,
      declaredSubgraphs: definition.options.subgraphs,
      metadata: definition.options.metadata,
    };
    if (root)
      node.readInput = (channels) => {
        const channel = channels.get(root)!;
        return channel.isAvailable() ? channel.get() : undefined;
      };
    nodes.set(name, node);
  }
  return {
    nodes,
    channelFactories: factories,
    stateKeys,
    stateKeySet: new Set(stateKeys),
    untrackedKeys: new Set(stateKeys.filter((key) => isUntracked(builder.spec[key]))),
    reducers,
    ephemeralChannels: ephemeral,
    ephemeralSet: new Set(ephemeral),
    finishChannels,
    noticingChannels: roles.noticing,
    triggerIndex: indexTriggers(nodes.values()),
    start,
    usesLangChain: [...reducers.values()].some(needsLangChain),
    rootKey: root,
  };
}
