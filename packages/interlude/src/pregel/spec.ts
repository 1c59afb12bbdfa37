/**
 * A low-level graph (`new Pregel({ nodes, channels, ... })`) as the runtime's `GraphSpec`: the
 * channels given are the state, each node runs its chain on the channels it reads and writes
 * through its `ChannelWrite`s, and the input is written straight to the input channels.
 */
import { type GraphSpec, indexTriggers, type NodeSpec } from "../algo/spec.js";
import type { Write } from "../algo/writes.js";
import type { Channel } from "../channels/base.js";
import { BinaryOperatorAggregate } from "../channels/binop.js";
import { channelFactory, InstanceRoles, isChannel } from "../channels/instance.js";
import { Topic } from "../channels/topic.js";
import { INTERRUPT, TASKS } from "../constants.js";
import { EmptyInputError, GraphValidationError, InvalidUpdateError } from "../errors/graph.js";
import { UnsupportedFeatureError } from "../errors/unsupported.js";
import { needsLangChain } from "../messages/reducer.js";
import { currentTask } from "../runner/scope.js";
import { ChannelWrite } from "./channel-write.js";
import { PregelNode } from "./node.js";

export type ChannelKeys = string | readonly string[];

/** What a low-level graph is made of (the part of `new Pregel(...)`'s params that shapes its runs). */
export interface PregelShape {
  nodes: Readonly<Record<string, PregelNode>>;
  channels: Readonly<Record<string, Channel>>;
  inputChannels: ChannelKeys;
  outputChannels: ChannelKeys;
  streamChannels?: ChannelKeys;
  interruptBefore?: readonly string[] | "*";
  interruptAfter?: readonly string[] | "*";
}

/** One channel key or several, as a list of its own. */
export const listOf = (keys: ChannelKeys): string[] => (typeof keys === "string" ? [keys] : [...keys]);

/** Refuses what could never run, as LangGraph.js's `validateGraph`, naming what to fix. */
function validateShape(shape: PregelShape): void {
  const { nodes, channels } = shape;
  if (!channels || typeof channels !== "object")
    throw new GraphValidationError("new Pregel({ channels }): channels are required (an object of channel instances).");
  for (const [name, channel] of Object.entries(channels))
    if (!isChannel(channel))
      throw new GraphValidationError(
        `Channel "${name}" is not a channel: give an instance such as new LastValue() or new Topic() from @interlude/core/channels.`,
      );
  const subscribed = new Set<string>();
  for (const [name, node] of Object.entries(nodes)) {
    if (name === INTERRUPT) throw new GraphValidationError(`Node name "${INTERRUPT}" is reserved.`, name);
    if (!(node instanceof PregelNode))
      throw new GraphValidationError(
        `Node "${name}" is not a PregelNode: build it with Channel.subscribeTo(...).pipe(...).`,
        name,
      );
    for (const trigger of node.triggers) subscribed.add(trigger);
    const read = Array.isArray(node.channels) ? node.channels : Object.values(node.channels);
    for (const channel of [...node.triggers, ...read, ...node.writtenChannels])
      if (!Object.hasOwn(channels, channel))
        throw new GraphValidationError(
          `Node "${name}" uses channel "${channel}", which is not in channels. Channels: ${Object.keys(channels).join(", ")}.`,
          name,
        );
  }
  const inputs = listOf(shape.inputChannels);
  if (!inputs.some((channel) => subscribed.has(channel)))
    throw new GraphValidationError(
      `No node subscribes to the input channel${inputs.length > 1 ? "s" : ""} ${inputs.join(", ")}: nothing would run.`,
    );
  for (const channel of [...inputs, ...listOf(shape.outputChannels), ...listOf(shape.streamChannels ?? [])])
    if (!Object.hasOwn(channels, channel))
      throw new GraphValidationError(
        `Input or output channel "${channel}" is not in channels. Channels: ${Object.keys(channels).join(", ")}.`,
      );
  for (const list of [shape.interruptBefore, shape.interruptAfter])
    if (list && list !== "*")
      for (const name of list)
        if (!Object.hasOwn(nodes, name))
          throw new GraphValidationError(`Breakpoint node "${name}" is not in nodes.`, name);
}

/** The run's input as writes to the input channels (one channel takes the input itself). */
function inputWriter(inputChannels: ChannelKeys): (input: unknown) => Write[] {
  return (input) => {
    if (typeof inputChannels === "string") return [[inputChannels, input]];
    if (typeof input !== "object" || input === null || Array.isArray(input))
      throw new InvalidUpdateError(
        `The input must be an object keyed by input channel (${inputChannels.join(", ")}), got ${JSON.stringify(input)}.`,
      );
    const writes: Write[] = [];
    for (const [key, value] of Object.entries(input)) if (inputChannels.includes(key)) writes.push([key, value]);
    if (writes.length === 0)
      throw new EmptyInputError(
        `The input names none of the input channels (${inputChannels.join(", ")}): nothing would run.`,
      );
    return writes;
  };
}

/** A node's writers run on `values`, as `updateState(config, values, node)` asks. */
function updateWriter(name: string, node: PregelNode): NodeSpec["updateWrites"] {
  return async (values, config) => {
    const writes: Write[] = [];
    for (const writer of node.writers) {
      if (!(writer instanceof ChannelWrite))
        throw new UnsupportedFeatureError(
          `updateState as node "${name}", whose writer is not a ChannelWrite`,
          "Write the channels directly: updateState as a node whose writers are Channel.writeTo(...).",
        );
      // A writer passes its input on: each is given the values.
      writes.push(...(await writer.writesFor(values, config)));
    }
    return writes;
  };
}

/** Runs the node's chain; its writes are those its writers pushed, checked against the graph's channels. */
function nodeRunner(name: string, node: PregelNode, known: ReadonlySet<string>): NodeSpec["run"] {
  // Its writes are the writers'; what the chain returned is not an update.
  const checked = (): undefined => {
    for (const [channel] of currentTask()?.pushed ?? [])
      if (!known.has(channel))
        throw new InvalidUpdateError(`Node "${name}" wrote to "${channel}", which is not one of the graph's channels.`);
    return undefined;
  };
  return (input, config) => {
    const ran = node.invoke(input, config);
    return ran instanceof Promise ? ran.then(checked) : checked();
  };
}

export function pregelSpec(shape: PregelShape): GraphSpec {
  validateShape(shape);
  const stateKeys = Object.keys(shape.channels);
  const channelFactories = new Map<string, () => Channel>();
  const roles = new InstanceRoles();
  let usesLangChain = false;
  for (const [name, channel] of Object.entries(shape.channels)) {
    channelFactories.set(name, channelFactory(channel, name));
    roles.add(name, channel);
    // A messages reducer coerces message-likes with @langchain/core: runs load it first.
    if (channel instanceof BinaryOperatorAggregate && needsLangChain(channel.reducer)) usesLangChain = true;
  }
  channelFactories.set(TASKS, () => new Topic());
  const ephemeral = [TASKS, ...roles.clearing];
  const known = new Set(channelFactories.keys());
  const nodes = new Map<string, NodeSpec>();
  for (const [name, node] of Object.entries(shape.nodes)) {
    nodes.set(name, {
      name,
      run: nodeRunner(name, node, known),
      triggers: node.triggers,
      edges: [],
      branches: [],
      retryPolicy: node.retryPolicy,
      cachePolicy: node.cachePolicy,
      timeout: node.timeout,
      metadata: node.metadata,
      declaredSubgraphs: node.subgraphs,
      readInput: (channels) => node.readInput(channels),
      updateWrites: updateWriter(name, node),
    });
  }
  return {
    nodes,
    channelFactories,
    stateKeys,
    stateKeySet: new Set(stateKeys),
    untrackedKeys: new Set(),
    reducers: new Map(),
    ephemeralChannels: ephemeral,
    ephemeralSet: new Set(ephemeral),
    finishChannels: roles.finishing,
    noticingChannels: roles.noticing,
    triggerIndex: indexTriggers(nodes.values()),
    inputWrites: inputWriter(shape.inputChannels),
    snapshotKeys: listOf(shape.streamChannels ?? stateKeys),
    usesLangChain,
  };
}
