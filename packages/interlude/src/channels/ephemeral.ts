import { InvalidUpdateError } from "../errors/graph.js";
import type { Channel } from "./base.js";

/** Holds a value for the one step after it was written (the run's input, read by `__start__`). */
export class EphemeralValue<V = unknown> implements Channel<V, V> {
  private value: V | undefined;
  private has = false;
  constructor(readonly key: string) {}

  update(values: V[]): boolean {
    if (values.length === 0) {
      if (!this.has) return false;
      this.has = false;
      this.value = undefined;
      return true;
    }
    if (values.length > 1) throw new InvalidUpdateError(`Channel "${this.key}" received ${values.length} values in one step; it takes one.`);
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
  fromCheckpoint(saved: unknown): EphemeralValue<V> {
    const channel = new EphemeralValue<V>(this.key);
    channel.value = saved as V;
    channel.has = true;
    return channel;
  }
  consume(): boolean {
    return false;
  }
}
