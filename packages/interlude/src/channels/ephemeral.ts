import { InvalidUpdateError } from "../errors/graph.js";
import { HeldValue } from "./held-value.js";

/** Holds a value for the one step after it was written (the run's input, read by `__start__`). */
export class EphemeralValue<V = unknown> extends HeldValue<V, V> {
  constructor(readonly key: string) {
    super();
  }

  update(values: V[]): boolean {
    if (values.length === 0) {
      if (!this.has) return false;
      this.has = false;
      this.value = undefined;
      return true;
    }
    if (values.length > 1)
      throw new InvalidUpdateError(`Channel "${this.key}" received ${values.length} values in one step; it takes one.`);
    this.hold(values[0]!);
    return true;
  }
  fromCheckpoint(saved: unknown): EphemeralValue<V> {
    const channel = new EphemeralValue<V>(this.key);
    channel.hold(saved as V);
    return channel;
  }
}
