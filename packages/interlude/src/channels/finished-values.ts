/**
 * LangGraph.js's channels that hold their value back until the run would otherwise finish
 * (`finish()`), for a low-level graph's deferred nodes: `LastValueAfterFinish` and
 * `NamedBarrierValueAfterFinish`. A StateGraph's `defer` uses `AfterFinish` around its trigger.
 */
import { EmptyChannelError } from "../errors/langgraph.js";
import { BaseChannel } from "./base.js";
import { NamedBarrierValue } from "./named-barrier.js";

/** The last value written, readable once the run has finished everything else; read once. */
export class LastValueAfterFinish<V = unknown> extends BaseChannel<V, V> {
  override readonly lc_graph_name: string = "LastValueAfterFinish";
  private value: V | undefined;
  private has = false;
  private finished = false;

  update(values: V[]): boolean {
    if (values.length === 0) return false;
    this.finished = false;
    this.value = values.at(-1);
    this.has = true;
    return true;
  }
  get(): V {
    if (!this.isAvailable()) throw new EmptyChannelError("The value is held until the run finishes.");
    return this.value as V;
  }
  override isAvailable(): boolean {
    return this.has && this.finished;
  }
  override finish(): boolean {
    if (this.finished || !this.has) return false;
    this.finished = true;
    return true;
  }
  override consume(): boolean {
    if (!this.finished) return false;
    this.finished = false;
    this.has = false;
    this.value = undefined;
    return true;
  }
  checkpoint(): unknown {
    return this.has ? [this.value, this.finished] : undefined;
  }
  fromCheckpoint(saved: unknown): LastValueAfterFinish<V> {
    const channel = new LastValueAfterFinish<V>();
    if (Array.isArray(saved)) {
      channel.value = saved[0] as V;
      channel.has = true;
      channel.finished = saved[1] === true;
    }
    return channel;
  }
}

/** Waits until every name has written and the run has finished everything else; then triggers once. */
export class NamedBarrierValueAfterFinish extends NamedBarrierValue {
  override readonly lc_graph_name: string = "NamedBarrierValueAfterFinish";
  private finished = false;

  override get(): undefined {
    if (!this.isAvailable())
      throw new EmptyChannelError("The barrier is waiting for its names or for the run to finish.");
    return undefined;
  }
  override isAvailable(): boolean {
    return this.finished && this.complete();
  }
  override finish(): boolean {
    if (this.finished || !this.complete()) return false;
    this.finished = true;
    return true;
  }
  override consume(): boolean {
    if (!this.finished || !super.consume()) return false;
    this.finished = false;
    return true;
  }
  override checkpoint(): unknown {
    return this.seen.size || this.finished ? [[...this.seen], this.finished] : undefined;
  }
  override fromCheckpoint(saved: unknown): NamedBarrierValueAfterFinish {
    const channel = new NamedBarrierValueAfterFinish(this.names);
    if (Array.isArray(saved)) {
      channel.seen = new Set(saved[0] as string[]);
      channel.finished = saved[1] === true;
    }
    return channel;
  }
}
