import { InvalidUpdateError } from "../errors/graph.js";
import { EmptyChannelError } from "../errors/langgraph.js";
import { BaseChannel } from "./base.js";

/**
 * Adds to `seen` the names of `values` that `names` waits for; a name it does not wait for is
 * refused (`strict`, a barrier of fixed names) or passed over. Returns true when `seen` grew.
 */
export function collectNames<Name>(
  names: ReadonlySet<Name>,
  seen: Set<Name>,
  values: Name[],
  strict: boolean,
): boolean {
  let changed = false;
  for (const name of values) {
    if (!names.has(name)) {
      if (strict)
        throw new InvalidUpdateError(
          `"${String(name)}" is not one of the names this barrier waits for: ${[...names].join(", ")}.`,
        );
      continue;
    }
    if (!seen.has(name)) {
      seen.add(name);
      changed = true;
    }
  }
  return changed;
}

/** Waits until every named source has written (`addEdge(["a", "b"], "c")`), then triggers once. */
export class NamedBarrierValue extends BaseChannel<undefined, string> {
  override readonly lc_graph_name: string = "NamedBarrierValue";
  protected seen = new Set<string>();
  constructor(protected readonly names: ReadonlySet<string>) {
    super();
  }

  update(values: string[]): boolean {
    return collectNames(this.names, this.seen, values, true);
  }
  /** Nothing to read: it is there (undefined) once every name has written, as in LangGraph.js. */
  get(): undefined {
    if (!this.isAvailable()) throw new EmptyChannelError("The barrier is waiting for some of its names.");
    return undefined;
  }
  /** Every name has written. */
  protected complete(): boolean {
    return this.seen.size === this.names.size;
  }
  override isAvailable(): boolean {
    return this.complete();
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
    if (!this.complete()) return false;
    this.seen = new Set();
    return true;
  }
}
