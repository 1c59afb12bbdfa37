/**
 * An actor of the low-level API: it subscribes to channels (its triggers), reads some channels
 * as its input, runs a chain of steps, and writes through its `ChannelWrite`s. Built with
 * `Channel.subscribeTo(...)` and `.pipe(...)`; immutable, as LangGraph.js's `PregelNode`.
 */
import { NO_TASK } from "../algo/spec.js";
import type { CachePolicy } from "../cache/base.js";
import type { Channel } from "../channels/base.js";
import { GraphValidationError } from "../errors/graph.js";
import { isRunnable, type RunnableLike } from "../graph/runnable.js";
import type { RetryPolicy } from "../runner/retry.js";
import type { TimeoutPolicy } from "../runner/timeout.js";
import { ChannelWrite } from "./channel-write.js";

/** A step of a node's chain: a function of the previous step's output, or a Runnable. */
export type NodeStep = RunnableLike | ((input: any, config?: any) => unknown);

export interface PregelNodeFields {
  /**
   * What the node reads: a list (the first of them that holds a value is the input) or named
   * channels (`{ key: channel }`: the input is an object of those holding a value).
   */
  channels: readonly string[] | Readonly<Record<string, string>>;
  /** Channels whose update makes the node run. */
  triggers: readonly string[];
  steps?: readonly NodeStep[];
  /** Run after the steps, each given the previous one's output (a `ChannelWrite` passes its input on). */
  writers?: readonly (ChannelWrite | RunnableLike)[];
  tags?: readonly string[];
  metadata?: Record<string, unknown>;
  retryPolicy?: RetryPolicy;
  cachePolicy?: CachePolicy;
  timeout?: TimeoutPolicy;
  /** Compiled graphs the node runs, for `getSubgraphs()`. */
  subgraphs?: readonly unknown[];
}

function runStep(step: NodeStep | ChannelWrite, input: unknown, config: unknown): unknown {
  return isRunnable(step) ? step.invoke(input, config) : (step as (i: unknown, c: unknown) => unknown)(input, config);
}

export class PregelNode {
  readonly lg_name = "PregelNode";
  readonly channels: readonly string[] | Readonly<Record<string, string>>;
  readonly triggers: readonly string[];
  readonly steps: readonly NodeStep[];
  readonly writers: readonly (ChannelWrite | RunnableLike)[];
  readonly tags: readonly string[];
  readonly metadata: Record<string, unknown>;
  readonly retryPolicy?: RetryPolicy;
  readonly cachePolicy?: CachePolicy;
  readonly timeout?: TimeoutPolicy;
  readonly subgraphs?: readonly unknown[];
  /** The steps, then the writers: what a run of the node calls in turn. */
  private readonly chain: ReadonlyArray<NodeStep | ChannelWrite>;

  constructor(fields: PregelNodeFields) {
    this.channels = fields.channels;
    this.triggers = fields.triggers;
    this.steps = fields.steps ?? [];
    this.writers = fields.writers ?? [];
    this.tags = fields.tags ?? [];
    this.metadata = fields.metadata ?? {};
    this.retryPolicy = fields.retryPolicy;
    this.cachePolicy = fields.cachePolicy;
    this.timeout = fields.timeout;
    this.subgraphs = fields.subgraphs;
    this.chain = [...this.steps, ...this.writers];
  }

  private with(changes: Partial<PregelNodeFields>): PregelNode {
    return new PregelNode({ ...this, ...changes });
  }

  /** A node that also runs `next`: a writer joins the writers, anything else the steps (before the writers). */
  pipe(next: NodeStep | ChannelWrite): PregelNode {
    if (ChannelWrite.isWriter(next)) return this.with({ writers: [...this.writers, next] });
    return this.with({ steps: [...this.steps, next] });
  }

  /**
   * A node that also reads `channels` (without being triggered by them); its channels must be
   * named (LangGraph.js would spread a one-channel node's list into keys "0", "1", ...).
   */
  join(channels: readonly string[]): PregelNode {
    if (Array.isArray(this.channels))
      throw new GraphValidationError(
        `join() needs named channels, and this node reads "${this.channels.join('", "')}" as its input value: ` +
          `subscribe with a list, Channel.subscribeTo(["${this.channels.join('", "')}"]), to read them by name.`,
      );
    return this.with({
      channels: { ...this.channels, ...Object.fromEntries(channels.map((channel) => [channel, channel])) },
    });
  }

  /** The channels its writers may write, known before it runs (what validation and drawing read). */
  get writtenChannels(): string[] {
    return this.writers.flatMap((writer) => (writer instanceof ChannelWrite ? writer.channels : []));
  }

  /**
   * The node's input: the first of its channels holding a value, or those holding one by key;
   * NO_TASK when none holds one, or when a channel it is triggered by is empty.
   */
  readInput(channels: ReadonlyMap<string, Channel>): unknown {
    if (Array.isArray(this.channels)) {
      for (const name of this.channels as readonly string[]) {
        const channel = channels.get(name);
        if (channel?.isAvailable()) return channel.get();
      }
      return NO_TASK;
    }
    const input: Record<string, unknown> = {};
    for (const [key, name] of Object.entries(this.channels)) {
      const channel = channels.get(name);
      if (channel?.isAvailable()) input[key] = channel.get();
      // Triggered by another of its channels while this one is empty: LangGraph.js runs no task.
      else if (this.triggers.includes(name)) return NO_TASK;
    }
    return input;
  }

  /**
   * Runs the steps, then the writers, each on the previous output; gives the last output.
   * Synchronous while the steps are (a step of synchronous functions saves its turns).
   */
  invoke(input: unknown, config?: unknown): unknown {
    return this.runFrom(0, input, config);
  }

  private runFrom(index: number, input: unknown, config: unknown): unknown {
    const chain = this.chain;
    let value = input;
    for (let i = index; i < chain.length; i++) {
      const output = runStep(chain[i]!, value, config);
      if (output instanceof Promise) return output.then((resolved) => this.runFrom(i + 1, resolved, config));
      value = output;
    }
    return value;
  }
}
