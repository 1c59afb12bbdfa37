import type { Channel } from "./base.js";

/** Collects every write of a step as a list (the `Send` packets of the next step); cleared the step after. */
export class Topic<V = unknown> implements Channel<V[], V> {
  private values: V[] = [];

  update(values: V[]): boolean {
    if (values.length === 0) {
      if (this.values.length === 0) return false;
      this.values = [];
      return true;
    }
    this.values = values.slice();
    return true;
  }
  get(): V[] {
    return this.values;
  }
  isAvailable(): boolean {
    return this.values.length > 0;
  }
  checkpoint(): unknown {
    return this.values.length ? this.values : undefined;
  }
  fromCheckpoint(saved: unknown): Topic<V> {
    const channel = new Topic<V>();
    if (Array.isArray(saved)) channel.values = saved as V[];
    return channel;
  }
  consume(): boolean {
    return false;
  }
}
