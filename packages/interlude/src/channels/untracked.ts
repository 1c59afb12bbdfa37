import { InvalidUpdateError } from "../errors/graph.js";
import { HeldValue } from "./held-value.js";

export interface UntrackedValueInit<V> {
  /** Refuse two writes in one step (default); with `false` the last one wins. */
  guard?: boolean;
  initialValueFactory?: () => V;
}

/**
 * A state key that lives only as long as a run: nodes read and write it, the run's result and
 * `values` stream show it, but no checkpoint or pending write stores it (a resumed run starts it
 * afresh). Put an instance in `Annotation.Root`, as in LangGraph.
 */
export class UntrackedValueChannel<V = unknown> extends HeldValue<V, V> {
  readonly lg_kind = "channel";
  override readonly lc_graph_name = "UntrackedValue";
  readonly guard: boolean;
  readonly initialValueFactory?: () => V;
  declare ValueType: V;
  declare UpdateType: V;

  constructor(init: UntrackedValueInit<V> = {}) {
    super();
    this.guard = init.guard ?? true;
    this.initialValueFactory = init.initialValueFactory;
    if (this.initialValueFactory) this.hold(this.initialValueFactory());
  }

  /** As a state declaration: its default is its initial value. */
  get default(): (() => V) | undefined {
    return this.initialValueFactory;
  }

  override update(values: V[]): boolean {
    if (values.length === 0) return false;
    if (this.guard && values.length > 1)
      throw new InvalidUpdateError(
        `An untracked state key received ${values.length} writes in one step; it takes one. ` +
          "Declare it with { guard: false } to keep the last of them.",
        "INVALID_CONCURRENT_GRAPH_UPDATE",
      );
    this.hold(values[values.length - 1]!);
    return true;
  }

  /** Nothing is stored: a checkpoint never holds an untracked value. */
  override checkpoint(): undefined {
    return undefined;
  }

  override fromCheckpoint(): UntrackedValueChannel<V> {
    return new UntrackedValueChannel<V>({ guard: this.guard, initialValueFactory: this.initialValueFactory });
  }
}

export function isUntracked(channel: unknown): channel is UntrackedValueChannel {
  return channel instanceof UntrackedValueChannel;
}
