import { EmptyChannelError } from "../errors/langgraph.js";
import { BaseChannel } from "./base.js";

/**
 * What the channels holding one value share (last value, ephemeral value, reducer): reading,
 * storing and restoring that value. Each decides how a step's writes change it.
 */
export abstract class HeldValue<V, U> extends BaseChannel<V, U> {
  protected value: V | undefined;
  protected has = false;

  override get(): V {
    // As LangGraph.js: reading a channel nothing was written to is an error (the engine asks isAvailable first).
    if (!this.has) throw new EmptyChannelError("The channel is empty: nothing was written to it yet.");
    return this.value as V;
  }
  override isAvailable(): boolean {
    return this.has;
  }
  override checkpoint(): unknown {
    return this.value;
  }
  protected hold(value: V): void {
    this.value = value;
    this.has = true;
  }
}
