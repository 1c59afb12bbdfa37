import { InvalidUpdateError } from "../errors/graph.js";
import { NOT_OVERWRITE, overwritten } from "../primitives/overwrite.js";
import { HeldValue } from "./held-value.js";

export type Reducer<V, U> = (current: V, update: U) => V;

/** A state key with a reducer: every write of a step is folded into the value in task order. */
export class BinaryOperatorAggregate<V = unknown, U = V> extends HeldValue<V, U> {
  override readonly lc_graph_name: string = "BinaryOperatorAggregate";
  constructor(
    /** Folds one write into the value (what a conditional edge's view of a node's writes uses too). */
    readonly reducer: Reducer<V, U>,
    private readonly initial?: () => V,
  ) {
    super();
    if (initial) this.hold(initial());
  }

  update(values: U[]): boolean {
    if (values.length === 0) return false;
    let i = 0;
    if (!this.has) {
      const first = overwritten(values[0]);
      this.hold((first === NOT_OVERWRITE ? values[0] : first) as V);
      i = 1;
    }
    let value = this.value as V;
    let overwrote = false;
    for (; i < values.length; i++) {
      const replacement = overwritten(values[i]);
      if (replacement !== NOT_OVERWRITE) {
        if (overwrote)
          throw new InvalidUpdateError("A state key received two Overwrite values in one step; it takes one.");
        value = replacement as V;
        overwrote = true;
      } else if (!overwrote) value = this.reducer(value, values[i] as U);
    }
    this.value = value;
    return true;
  }
  fromCheckpoint(saved: unknown): BinaryOperatorAggregate<V, U> {
    const channel = new BinaryOperatorAggregate<V, U>(this.reducer, this.initial);
    if (saved !== undefined) channel.hold(saved as V);
    return channel;
  }
}
