import { InvalidUpdateError } from "../errors/graph.js";
import { NOT_OVERWRITE, overwritten } from "../primitives/overwrite.js";
import { HeldValue } from "./held-value.js";

/** Folds a step's writes into the value in one call: `reducer(reducer(s, xs), ys)` must equal `reducer(s, [...xs, ...ys])`. */
export type DeltaReducer<V, U = unknown> = (state: V, writes: U[]) => V;

export interface DeltaChannelOptions<V> {
  /** LangGraph.js stores a full value every this many updates (default 100); see the class comment. */
  snapshotFrequency?: number;
  /** The value before any write (default: an empty list). */
  initialValueFactory?: () => V;
}

/**
 * LangGraph.js's `DeltaChannel`: a state key whose writes are folded by a batch reducer. There it
 * also changes storage (each checkpoint keeps the step's writes, a full value every
 * `snapshotFrequency` updates); Interlude's savers already store only the items appended to a
 * list, whatever its reducer (checkpoint/delta.ts), so here it changes how writes are folded and
 * nothing else.
 * Put an instance in `Annotation.Root`, or use `DeltaValue` in a `StateSchema`.
 */
export class DeltaChannel<V = unknown, U = unknown> extends HeldValue<V, U> {
  readonly lg_kind = "channel";
  override readonly lc_graph_name = "DeltaChannel";
  readonly snapshotFrequency: number;
  readonly initialValueFactory: () => V;
  declare ValueType: V;
  declare UpdateType: U;

  constructor(
    readonly reducer: DeltaReducer<V, U>,
    options: DeltaChannelOptions<V> = {},
  ) {
    super();
    const frequency = options.snapshotFrequency ?? 100;
    if (!Number.isInteger(frequency) || frequency <= 0)
      throw new InvalidUpdateError(`DeltaChannel's snapshotFrequency must be a positive integer; got ${frequency}.`);
    this.snapshotFrequency = frequency;
    this.initialValueFactory = options.initialValueFactory ?? (() => [] as V);
  }

  /** As a state declaration: its default is its initial value. */
  get default(): () => V {
    return this.initialValueFactory;
  }

  update(values: U[]): boolean {
    if (values.length === 0) return false;
    let replacement: unknown = NOT_OVERWRITE;
    for (const value of values) {
      const given = overwritten(value);
      if (given === NOT_OVERWRITE) continue;
      if (replacement !== NOT_OVERWRITE)
        throw new InvalidUpdateError("A state key received two Overwrite values in one step; it takes one.");
      replacement = given;
    }
    // As LangGraph.js: an overwrite replaces the value and the step's other writes are dropped.
    if (replacement !== NOT_OVERWRITE) this.hold((replacement ?? this.initialValueFactory()) as V);
    else this.hold(this.reducer(this.has ? (this.value as V) : this.initialValueFactory(), values));
    return true;
  }

  /** As LangGraph.js: empty when made, its initial value once restored from nothing. */
  fromCheckpoint(saved: unknown): DeltaChannel<V, U> {
    const channel = new DeltaChannel<V, U>(this.reducer, this);
    channel.hold(saved !== undefined ? (saved as V) : this.initialValueFactory());
    return channel;
  }
}

export function isDeltaChannel(channel: unknown): channel is DeltaChannel {
  return channel instanceof DeltaChannel;
}
