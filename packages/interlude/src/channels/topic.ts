import { BaseChannel } from "./base.js";

export interface TopicOptions {
  /** A value already received (in any step) is not added again. */
  unique?: boolean;
  /** Values are kept across steps; else a step's writes replace the last step's, and a step without writes clears them. */
  accumulate?: boolean;
}

/**
 * Collects every write of a step as a list (the `Send` packets of the next step); cleared the
 * step after unless it accumulates. A written list adds its items, as LangGraph.js's Topic.
 */
export class Topic<V = unknown> extends BaseChannel<V[], V | V[]> {
  override readonly lc_graph_name = "Topic";
  private values: V[] = [];
  private seen?: Set<V>;
  readonly unique: boolean;
  readonly accumulate: boolean;

  constructor(options: TopicOptions = {}) {
    super();
    this.unique = options.unique ?? false;
    this.accumulate = options.accumulate ?? false;
    if (this.unique) this.seen = new Set();
  }

  update(values: Array<V | V[]>): boolean {
    let updated = false;
    if (!this.accumulate && this.values.length > 0) {
      this.values = [];
      updated = true;
    }
    for (const value of values) {
      for (const item of Array.isArray(value) ? value : [value]) {
        if (this.seen?.has(item)) continue;
        this.seen?.add(item);
        // Copy on write: a restored channel may share its list with the checkpoint it came from.
        if (!updated) this.values = this.values.slice();
        this.values.push(item);
        updated = true;
      }
    }
    return updated;
  }
  get(): V[] {
    return this.values;
  }
  override isAvailable(): boolean {
    return this.values.length > 0;
  }
  /** A unique topic stores `[seen, values]`, so a restored one still refuses what it saw. */
  checkpoint(): unknown {
    if (this.seen) return [[...this.seen], this.values];
    return this.values.length ? this.values : undefined;
  }
  fromCheckpoint(saved: unknown): Topic<V> {
    const channel = new Topic<V>({ unique: this.unique, accumulate: this.accumulate });
    if (!Array.isArray(saved)) return channel;
    if (this.unique && saved.length === 2 && Array.isArray(saved[0]) && Array.isArray(saved[1])) {
      channel.seen = new Set(saved[0] as V[]);
      channel.values = saved[1] as V[];
    } else {
      channel.values = saved as V[];
      if (channel.seen) for (const value of channel.values) channel.seen.add(value);
    }
    return channel;
  }
}
