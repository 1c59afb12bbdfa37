import type { Channel } from "./base.js";

export type Reducer<V, U> = (current: V, update: U) => V;

/** A state key with a reducer: every write of a step is folded into the value in task order. */
export class BinaryOperatorAggregate<V = unknown, U = V> implements Channel<V, U> {
  private value: V | undefined;
  private has = false;
  constructor(
    private readonly reducer: Reducer<V, U>,
    private readonly initial?: () => V,
  ) {
    if (initial) {
      this.value = initial();
      this.has = true;
    }
  }

  update(values: U[]): boolean {
    if (values.length === 0) return false;
    let i = 0;
    if (!this.has) {
      this.value = values[0] as unknown as V;
      this.has = true;
      i = 1;
    }
    let value = this.value as V;
    for (; i < values.length; i++) value = this.reducer(value, values[i] as U);
    this.value = value;
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
  fromCheckpoint(saved: unknown): BinaryOperatorAggregate<V, U> {
    const channel = new BinaryOperatorAggregate<V, U>(this.reducer, this.initial);
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
