import { InvalidUpdateError } from "../errors/graph.js";
import type { Channel } from "./base.js";

/** A state key without a reducer: the last write wins, and only one write per step is allowed. */
export class LastValue<V = unknown> implements Channel<V, V> {
  private value: V | undefined;
  private has = false;
  constructor(readonly key: string) {}

  update(values: V[]): boolean {
    if (values.length === 0) return false;
    if (values.length > 1) {
      throw new InvalidUpdateError(
        `State key "${this.key}" received ${values.length} writes in one step, but it has no reducer to combine them. ` +
          `Give it one: Annotation<T>({ reducer: (current, update) => ..., default: () => ... }), or let only one node write it per step.`,
      );
    }
    this.value = values[0];
    this.has = true;
    return true;
  }
  get(): V {
    return this.value as V;
  }
  isAvailable(): boolean {
    return this.has;
  }
  checkpoint(): unknown {
    return this.value;
  }
  fromCheckpoint(saved: unknown): LastValue<V> {
    const channel = new LastValue<V>(this.key);
    if (saved !== undefined) {
      channel.value = saved as V;
      channel.has = true;
    }
    return channel;
  }
  consume(): boolean {
    return false;
  }
}
