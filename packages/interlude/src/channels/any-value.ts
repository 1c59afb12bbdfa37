import { EmptyChannelError } from "../errors/langgraph.js";
import { HeldValue } from "./held-value.js";

/**
 * LangGraph.js's `AnyValue`: the last of a step's writes (any number of them, assumed equal),
 * cleared by a step that writes nothing.
 */
export class AnyValue<V = unknown> extends HeldValue<V, V> {
  override readonly lc_graph_name: string = "AnyValue";

  update(values: V[]): boolean {
    if (values.length === 0) {
      if (!this.has) return false;
      this.has = false;
      this.value = undefined;
      return true;
    }
    this.hold(values.at(-1)!);
    return true;
  }
  override get(): V {
    if (!this.has) throw new EmptyChannelError("The channel is empty: nothing was written to it in the last step.");
    return this.value as V;
  }
  fromCheckpoint(saved: unknown): AnyValue<V> {
    const channel = new AnyValue<V>();
    if (saved !== undefined) channel.hold(saved as V);
    return channel;
  }
}
