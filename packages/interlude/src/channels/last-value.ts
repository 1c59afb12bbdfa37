import { InvalidUpdateError } from "../errors/graph.js";
import { HeldValue } from "./held-value.js";

/** A state key without a reducer: the last write wins, and only one write per step is allowed. */
export class LastValue<V = unknown> extends HeldValue<V, V> {
  override readonly lc_graph_name: string = "LastValue";
  /** The channel's name in its graph, for errors (a low-level graph names the channels it is given). */
  key: string;
  /** LangGraph.js's `new LastValue(() => initial)`: the value it holds until written, in every copy. */
  private readonly initial?: () => V;
  constructor(keyOrInitial: string | (() => V) = "") {
    super();
    if (typeof keyOrInitial === "function") {
      this.key = "";
      this.initial = keyOrInitial;
      this.hold(keyOrInitial());
    } else this.key = keyOrInitial;
  }

  update(values: V[]): boolean {
    if (values.length === 0) return false;
    if (values.length > 1) {
      throw new InvalidUpdateError(
        `State key "${this.key}" received ${values.length} writes in one step, but it has no reducer to combine them. ` +
          `Give it one: Annotation<T>({ reducer: (current, update) => ..., default: () => ... }), or let only one node write it per step.`,
        "INVALID_CONCURRENT_GRAPH_UPDATE",
      );
    }
    this.hold(values[0]!);
    return true;
  }
  fromCheckpoint(saved: unknown): LastValue<V> {
    const channel = new LastValue<V>(this.initial ?? this.key);
    channel.key = this.key;
    if (saved !== undefined) channel.hold(saved as V);
    return channel;
  }
}
