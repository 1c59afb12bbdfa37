/**
 * LangGraph's drain API: `invoke(input, { control })`, then `control.requestDrain(reason)` (from
 * a SIGTERM handler, a supervisor) stops the run at its next step boundary with `GraphDrained`,
 * its last step saved: `invoke(null, config)` continues it later. Work already running finishes.
 * (`GraphDrained` is in interrupt/signal.ts, with the other errors that stop a run.)
 */
export class RunControl {
  #reason: string | undefined;

  /** Stop the run at its next step boundary. */
  requestDrain(reason = "shutdown"): void {
    this.#reason = reason;
  }

  get drainRequested(): boolean {
    return this.#reason !== undefined;
  }

  get drainReason(): string | undefined {
    return this.#reason;
  }
}
