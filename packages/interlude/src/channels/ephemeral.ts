import { InvalidUpdateError } from "../errors/graph.js";
import { HeldValue } from "./held-value.js";

/** Holds a value for the one step after it was written (the run's input, read by `__start__`). */
export class EphemeralValue<V = unknown> extends HeldValue<V, V> {
  override readonly lc_graph_name: string = "EphemeralValue";
  /** The channel's name in its graph, for errors (a low-level graph names the channels it is given). */
  key: string;
  /** Several writes in one step are refused; without the guard (LangGraph.js's `new EphemeralValue(false)`) the last wins. */
  readonly guard: boolean;
  constructor(key: string | boolean = "", guard = true) {
    super();
    this.key = typeof key === "string" ? key : "";
    this.guard = typeof key === "boolean" ? key : guard;
  }

  update(values: V[]): boolean {
    if (values.length === 0) {
      if (!this.has) return false;
      this.has = false;
      this.value = undefined;
      return true;
    }
    if (values.length > 1 && this.guard)
      throw new InvalidUpdateError(`Channel "${this.key}" received ${values.length} values in one step; it takes one.`);
    this.hold(values.at(-1)!);
    return true;
  }
  fromCheckpoint(saved: unknown): EphemeralValue<V> {
    const channel = new EphemeralValue<V>(this.key, this.guard);
    if (saved !== undefined) channel.hold(saved as V);
    return channel;
  }
}
