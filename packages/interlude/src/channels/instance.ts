/**
 * Channels given as instances (`new Topic()` in `Annotation.Root`, a low-level graph's
 * `channels`): each run starts from a fresh copy, named after its key for its errors.
 */
import { AfterFinish } from "./after-finish.js";
import { BaseChannel, type Channel } from "./base.js";
import { BinaryOperatorAggregate } from "./binop.js";
import { DeltaChannel } from "./delta.js";
import { DynamicBarrierValue } from "./dynamic-barrier.js";
import { EphemeralValue } from "./ephemeral.js";
import { LastValueAfterFinish, NamedBarrierValueAfterFinish } from "./finished-values.js";
import { LastValue } from "./last-value.js";
import { NamedBarrierValue } from "./named-barrier.js";
import { Topic } from "./topic.js";
import { Trigger } from "./trigger.js";
import { UntrackedValueChannel } from "./untracked.js";

export function isChannel(value: unknown): value is Channel {
  const channel = value as Channel | null;
  return (
    typeof channel === "object" &&
    channel !== null &&
    typeof channel.update === "function" &&
    typeof channel.get === "function" &&
    typeof channel.fromCheckpoint === "function"
  );
}

/** A fresh, empty copy of `channel` for each run; one made without a name (`new LastValue()`) takes `key`. */
export function channelFactory(channel: Channel, key: string): () => Channel {
  return () => {
    const fresh = channel.fromCheckpoint(undefined);
    if ((fresh instanceof LastValue || fresh instanceof EphemeralValue) && !fresh.key) fresh.key = key;
    return fresh;
  };
}

/** Whether a step that does not write the channel clears it: one-step values (AnyValue too) and non-accumulating topics. */
function clearsEachStep(channel: Channel): boolean {
  return channel instanceof EphemeralValue || (channel instanceof Topic && !channel.accumulate);
}

/** Whether the channel holds its value back until the run would finish (its class has a `finish()` of its own). */
function finishes(channel: Channel): boolean {
  const finish = (channel as { finish?: unknown }).finish;
  return typeof finish === "function" && finish !== BaseChannel.prototype.finish;
}

/** Interlude's own `update` methods: an empty update changes none of them but the one-step ones'. */
const OWN_UPDATES: ReadonlySet<unknown> = new Set(
  [
    AfterFinish,
    BinaryOperatorAggregate,
    DeltaChannel,
    DynamicBarrierValue,
    EphemeralValue,
    LastValue,
    LastValueAfterFinish,
    NamedBarrierValue,
    NamedBarrierValueAfterFinish,
    Topic,
    Trigger,
    UntrackedValueChannel,
  ].map((channel) => channel.prototype.update),
);

/**
 * Whether the channel is to be told of each step that does not update it (`update([])`), as
 * LangGraph.js tells every channel: a class of one's own may count steps or expire a value.
 * Interlude's own classes are not told (nothing would change; the one-step ones are cleared).
 */
function noticesSteps(channel: Channel): boolean {
  return !clearsEachStep(channel) && !OWN_UPDATES.has(channel.update);
}

/**
 * The channels given as instances that the loop treats apart, by name: those a step that does
 * not write them clears, those held back until the run would finish, and those told of each
 * step (a StateGraph's keys and a low-level graph's channels alike).
 */
export class InstanceRoles {
  readonly clearing: string[] = [];
  readonly finishing: string[] = [];
  readonly noticing: string[] = [];

  add(name: string, channel: Channel): void {
    if (clearsEachStep(channel)) this.clearing.push(name);
    if (finishes(channel)) this.finishing.push(name);
    if (noticesSteps(channel)) this.noticing.push(name);
  }
}
