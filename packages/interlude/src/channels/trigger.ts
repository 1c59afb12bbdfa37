import { BaseChannel } from "./base.js";

/**
 * Says "run this node next step": written by edges, branches and `Command({ goto })`.
 * Any number of writes per step collapse into one trigger; it clears itself the step after.
 */
export class Trigger extends BaseChannel<true, unknown> {
  override readonly lc_graph_name: string = "Trigger";
  private set = false;

  update(values: unknown[]): boolean {
    if (values.length === 0) {
      if (!this.set) return false;
      this.set = false;
      return true;
    }
    this.set = true;
    return true;
  }
  get(): true {
    return true;
  }
  override isAvailable(): boolean {
    return this.set;
  }
  checkpoint(): unknown {
    return this.set ? true : undefined;
  }
  fromCheckpoint(saved: unknown): Trigger {
    const channel = new Trigger();
    channel.set = saved === true;
    return channel;
  }
}
