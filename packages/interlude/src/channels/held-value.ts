import { EmptyChannelError } from "../errors/langgraph.js";
import type { Channel } from "./base.js";

/**
 * What the channels holding one value share (last value, ephemeral value, reducer): reading,
 * storing and restoring that value. Each decides how a step's writes change it.
 */
export abstract class HeldValue<V, U> implements Channel<V, U> {
  protected value: V | undefined;
  protected has = false;

  abstract update(values: U[]): boolean;
  abstract fromCheckpoint(saved: unknown): Channel<V, U>;

  get(): V {
    // As LangGraph.js: reading a channel nothing was written to is an error (the engine asks isAvailable first).
    if (!this.has) throw new EmptyChannelError("The channel is empty: nothing was written to it yet.");
    return this.value as V;
  }
  isAvailable(): boolean {
    return this.has;
  }
  checkpoint(): unknown {
    return this.value;
  }
  consume(): boolean {
    return false;
  }

  protected hold(value: V): void {
    this.value = value;
    this.has = true;
  }
}
