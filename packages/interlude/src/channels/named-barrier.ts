import type { Channel } from "./base.js";

/** Waits until every named source has written (`addEdge(["a", "b"], "c")`), then triggers once. */
export class NamedBarrierValue implements Channel<true, string> {
  private seen = new Set<string>();
  constructor(private readonly names: ReadonlySet<string>) {}

  update(values: string[]): boolean {
    let changed = false;
    for (const name of values) {
      if (this.names.has(name) && !this.seen.has(name)) {
        this.seen.add(name);
        changed = true;
      }
    }
    return changed;
  }
  get(): true {
    return true;
  }
  isAvailable(): boolean {
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
  consume(): boolean {
    if (this.seen.size === this.names.size) {
      this.seen = new Set();
      return true;
    }
    return false;
  }
}
