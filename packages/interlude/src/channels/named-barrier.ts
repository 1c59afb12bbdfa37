import { InvalidUpdateError } from "../errors/graph.js";
import { EmptyChannelError } from "../errors/langgraph.js";
import { BaseChannel } from "./base.js";

/** Waits until every named source has written (`addEdge(["a", "b"], "c")`), then triggers once. */
export class NamedBarrierValue extends BaseChannel<undefined, string> {
  override readonly lc_graph_name: string = "NamedBarrierValue";
  private seen = new Set<string>();
  constructor(private readonly names: ReadonlySet<string>) {
    super();
  }

  update(values: string[]): boolean {
    let changed = false;
    for (const name of values) {
      if (!this.names.has(name))
        throw new InvalidUpdateError(
          `"${name}" is not one of the names this barrier waits for: ${[...this.names].join(", ")}.`,
        );
      if (!this.seen.has(name)) {
        this.seen.add(name);
        changed = true;
      }
    }
    return changed;
  }
  /** Nothing to read: it is there (undefined) once every name has written, as in LangGraph.js. */
  get(): undefined {
    if (!this.isAvailable()) throw new EmptyChannelError("The barrier is waiting for some of its names.");
    return undefined;
  }
  override isAvailable(): boolean {
    return this.seen.size === this.names.size;
  }
  checkpoint(): unknown {
    return this.seen.size ? [...this.seen] : undefined;
  }
  fromCheckpoint(saved: unknown): NamedBarrierValue {
    const channel = new NamedBarrierValue(this.names);
    if (Array.isArray(saved)) channel.seen = new Set(saved as string[]);
    return channel;
  }
  override consume(): boolean {
    if (this.seen.size === this.names.size) {
      this.seen = new Set();
      return true;
    }
    return false;
  }
}
