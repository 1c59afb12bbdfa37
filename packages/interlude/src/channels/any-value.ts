import { EphemeralValue } from "./ephemeral.js";

/**
 * LangGraph.js's `AnyValue`: the last of a step's writes (any number of them, assumed equal),
 * cleared by a step that writes nothing: an `EphemeralValue` without its one-write guard.
 */
export class AnyValue<V = unknown> extends EphemeralValue<V> {
  override readonly lc_graph_name: string = "AnyValue";
  constructor() {
    super("", false);
  }

  override fromCheckpoint(saved: unknown): AnyValue<V> {
    const channel = new AnyValue<V>();
    channel.key = this.key;
    if (saved !== undefined) channel.hold(saved as V);
    return channel;
  }
}
