import { BaseChannel, type Channel } from "./base.js";

/**
 * Holds another channel's value back until the run would otherwise finish: the trigger of a
 * node added with `{ defer: true }`, which so runs once, after everything else. `finish()` is
 * called when a step triggers no node; the value is then available for one step.
 */
export class AfterFinish<Value, Update> extends BaseChannel<Value, Update> {
  override readonly lc_graph_name: string = "AfterFinish";
  private finished = false;
  constructor(private inner: Channel<Value, Update>) {
    super();
  }

  update(values: Update[]): boolean {
    if (values.length === 0) return false;
    const changed = this.inner.update(values);
    if (changed) this.finished = false;
    return changed;
  }
  get(): Value {
    return this.inner.get();
  }
  override isAvailable(): boolean {
    return this.finished && this.inner.isAvailable();
  }
  /** Releases the value held back. Returns true when there was one. */
  override finish(): boolean {
    if (this.finished || !this.inner.isAvailable()) return false;
    this.finished = true;
    return true;
  }
  override consume(): boolean {
    if (!this.finished) return false;
    this.finished = false;
    this.inner = this.inner.fromCheckpoint(undefined);
    return true;
  }
  checkpoint(): unknown {
    const saved = this.inner.checkpoint();
    return saved === undefined ? undefined : { saved, finished: this.finished };
  }
  fromCheckpoint(stored: unknown): AfterFinish<Value, Update> {
    const { saved, finished } = (stored ?? {}) as { saved?: unknown; finished?: boolean };
    const channel = new AfterFinish(this.inner.fromCheckpoint(saved));
    channel.finished = finished === true;
    return channel;
  }
}
