import type { Channel as ChannelType } from "../channels/base.js";
import { END, START } from "../constants.js";
import { everyName, refuseUnknownGraphOptions } from "../errors/options.js";
import { UnsupportedFeatureError } from "../errors/unsupported.js";
import { COMPILE_OPTIONS } from "../graph/build-spec.js";
import { CompiledStateGraph, type CompileOptions, type RunConfig, type StreamConfig } from "../graph/compiled.js";
import { type GraphDeclaration, type NodeDefinition, nodeDefinition } from "../graph/declaration.js";
import type { StreamMode } from "../run/emitter.js";
import type { RetryPolicy } from "../runner/retry.js";
import type { PregelNode } from "./node.js";
import { type ChannelKeys, listOf, type PregelShape, pregelSpec } from "./spec.js";

/** What `new Pregel(...)` takes: its shape, and what `compile()` takes for a StateGraph (saver, store, breakpoints, ...). */
export interface PregelParams extends PregelShape, Omit<CompileOptions, "interruptBefore" | "interruptAfter"> {
  /** The stream mode of `stream()` calls that name none ("values" by default). */
  streamMode?: StreamMode | StreamMode[];
  /** The longest a step may take (ms). */
  stepTimeout?: number;
  /** The retry policy of nodes that have none of their own. */
  retryPolicy?: RetryPolicy;
  /** Config every run gets under its own (as `withConfig`). */
  config?: RunConfig;
  /** LangGraph.js's console tracing: not provided (false is accepted). */
  debug?: boolean;
  /** Accepted for compatibility: Interlude always validates the graph when it is built. */
  autoValidate?: boolean;
  /** LangGraph.js's name for `transformers` on a Pregel (both may be given: these run after). */
  streamTransformers?: CompileOptions["transformers"];
  /** LangGraph.js's index of the nodes each channel triggers: accepted, unused (Interlude derives its own). */
  triggerToNodes?: Readonly<Record<string, readonly string[]>>;
}

/** `new Pregel()`'s options by name: `compile()`'s, and its shape's and defaults'. */
const PREGEL_PARAMS = [
  ...COMPILE_OPTIONS,
  ...everyName<Exclude<keyof PregelParams, keyof CompileOptions>>({
    nodes: 1,
    channels: 1,
    inputChannels: 1,
    outputChannels: 1,
    streamChannels: 1,
    streamMode: 1,
    stepTimeout: 1,
    retryPolicy: 1,
    config: 1,
    debug: 1,
    autoValidate: 1,
    streamTransformers: 1,
    triggerToNodes: 1,
  }),
];

/**
 * Who reaches whom, for drawing: START leads to nodes subscribed to an input channel, a node to
 * those subscribed to a channel it writes, and to END when it writes an output channel.
 */
function declarationOf(params: PregelParams, compile: (options?: CompileOptions) => Pregel) {
  const nodes: Record<string, NodeDefinition> = {};
  const edges: Array<{ sources: string[]; target: string }> = [];
  const subscribers = (channel: string) =>
    Object.entries(params.nodes)
      .filter(([, node]) => node.triggers.includes(channel))
      .map(([name]) => name);
  const outputs = new Set(listOf(params.outputChannels));
  const add = (source: string, target: string) => {
    if (!edges.some((edge) => edge.sources[0] === source && edge.target === target))
      edges.push({ sources: [source], target });
  };
  for (const channel of listOf(params.inputChannels)) for (const target of subscribers(channel)) add(START, target);
  for (const [name, node] of Object.entries(params.nodes)) {
    nodes[name] = nodeDefinition(name, (input, config) => node.invoke(input, config), {});
    for (const channel of node.writtenChannels) {
      for (const target of subscribers(channel)) add(name, target);
      if (outputs.has(channel)) add(name, END);
    }
  }
  const declaration: GraphDeclaration & { compile: typeof compile } = {
    spec: {},
    outputKeys: params.outputChannels,
    validators: new Map(),
    nodes,
    edges,
    branches: [],
    compile,
  };
  return declaration;
}

function withDefaultRetry(nodes: PregelShape["nodes"], retryPolicy: RetryPolicy | undefined): PregelShape["nodes"] {
  if (!retryPolicy) return nodes;
  const out: Record<string, PregelNode> = {};
  for (const [name, node] of Object.entries(nodes))
    out[name] = node.retryPolicy ? node : Object.assign(Object.create(node), { retryPolicy });
  return out;
}

export class Pregel extends CompiledStateGraph<any, any, string> {
  readonly channels: Readonly<Record<string, ChannelType>>;
  readonly inputChannels: ChannelKeys;
  readonly outputChannels: ChannelKeys;
  readonly streamChannels?: ChannelKeys;
  readonly streamMode: StreamMode | StreamMode[];

  /** `declaration`: what the graph was built from, when a builder made it (a non-state `Graph`), for drawing. */
  constructor(params: PregelParams, declaration?: GraphDeclaration & { compile(options?: CompileOptions): Pregel }) {
    refuseUnknownGraphOptions("new Pregel()", params, PREGEL_PARAMS);
    if (params.debug)
      throw new UnsupportedFeatureError("new Pregel({ debug: true })", 'Stream with streamMode "debug" instead.');
    // Checked first: the drawing's declaration reads the nodes' triggers and writers.
    const spec = pregelSpec({ ...params, nodes: withDefaultRetry(params.nodes, params.retryPolicy) });
    const builder =
      declaration ?? declarationOf(params, (options = {}) => new Pregel({ ...params, ...options } as PregelParams));
    const { checkpointer, store, cache, name, description, resumeMatching, streamTransformers } = params;
    const transformers = streamTransformers
      ? [...(params.transformers ?? []), ...streamTransformers]
      : params.transformers;
    super(builder, spec, {
      checkpointer,
      store,
      cache,
      name,
      description,
      resumeMatching,
      transformers,
      interruptBefore: params.interruptBefore as string[] | "*" | undefined,
      interruptAfter: params.interruptAfter as string[] | "*" | undefined,
    });
    this.channels = params.channels;
    this.inputChannels = params.inputChannels;
    this.outputChannels = params.outputChannels;
    this.streamChannels = params.streamChannels;
    this.streamMode = params.streamMode ?? "values";
    if (params.stepTimeout !== undefined) this.stepTimeout = params.stepTimeout;
    if (params.config) this.defaults = params.config;
  }

  /** What `stream()` reads by default: the stream channels, else every channel. */
  override get streamChannelsAsIs(): ChannelKeys {
    return this.streamChannels ?? Object.keys(this.channels);
  }

  /** Returns the output channels' values (one channel's value itself), unless `outputKeys` says otherwise. */
  override invoke(input: unknown, config: RunConfig = {}): Promise<any> {
    return super.invoke(input, { ...config, outputKeys: config.outputKeys ?? (this.outputChannels as string[]) });
  }

  /** Streams the stream channels in the graph's stream mode, unless the call names others. */
  override stream(input: unknown, config: StreamConfig = {}): ReturnType<CompiledStateGraph["stream"]> {
    return super.stream(input, {
      ...config,
      streamMode: config.streamMode ?? this.streamMode,
      outputKeys: config.outputKeys ?? (this.streamChannelsAsIs as string[]),
    });
  }
}
