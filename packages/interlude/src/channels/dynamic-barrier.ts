import { InvalidUpdateError } from "../errors/graph.js";
import { EmptyChannelError } from "../errors/langgraph.js";
import { BaseChannel } from "./base.js";
import { collectNames } from "./named-barrier.js";

/** The write that tells a `DynamicBarrierValue` which names to wait for. */
export interface WaitForNames<Value = string> {
  __names: Value[];
}

function isWaitForNames(value: unknown): value is WaitForNames<unknown> {
  return typeof value === "object" && value !== null && (value as WaitForNames<unknown>).__names !== undefined;
}

/**
 * LangGraph.js's barrier whose names are written to it: a `{ __names: [...] }` write primes it,
 * then it collects those names and, once all have written, is read once and primed again.
 */
export class DynamicBarrierValue<Value = string> extends BaseChannel<undefined, Value | WaitForNames<Value>> {
  override readonly lc_graph_name: string = "DynamicBarrierValue";
  private names?: Set<Value>;
  private seen = new Set<Value>();

  update(values: Array<Value | WaitForNames<Value>>): boolean {
    const priming = values.filter(isWaitForNames) as WaitForNames<Value>[];
    if (priming.length > 1)
      throw new InvalidUpdateError("A DynamicBarrierValue received several WaitForNames in one step.");
    if (priming.length === 1) {
      this.names = new Set(priming[0]!.__names);
      return true;
    }
    if (this.names === undefined) return false;
    return collectNames(this.names, this.seen, values as Value[], false);
  }
  get(): undefined {
    if (!this.isAvailable()) throw new EmptyChannelError("The barrier is waiting for some of its names.");
    return undefined;
  }
  override isAvailable(): boolean {
    return (
      this.names !== undefined &&
      this.names.size === this.seen.size &&
      [...this.names].every((name) => this.seen.has(name))
    );
  }
  override consume(): boolean {
    if (!this.isAvailable()) return false;
    this.seen = new Set();
    this.names = undefined;
    return true;
  }
  checkpoint(): unknown {
    return this.names === undefined && this.seen.size === 0
      ? undefined
      : [this.names && [...this.names], [...this.seen]];
  }
  fromCheckpoint(saved: unknown): DynamicBarrierValue<Value> {
    const channel = new DynamicBarrierValue<Value>();
    if (Array.isArray(saved)) {
      if (Array.isArray(saved[0])) channel.names = new Set(saved[0] as Value[]);
      channel.seen = new Set((saved[1] ?? []) as Value[]);
    }
    return channel;
  }
}
