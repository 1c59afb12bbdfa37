/**
 * LangGraph's drain API: `invoke(input, { control })`, then `control.requestDrain(reason)` (from
 * a SIGTERM handler, a supervisor) stops the run at its next step boundary with `GraphDrained`,
 * its last step saved: `invoke(null, config)` continues it later. Work already running finishes.
 */
import { GraphBubbleUp } from "../interrupt/signal.js";

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

/** The run stopped because a drain was asked for (`RunControl`); its last step is saved. */
export class GraphDrained extends GraphBubbleUp {
  constructor(readonly reason = "shutdown") {
    super(`Graph drained: ${reason}`);
    this.name = "GraphDrained";
  }
}

export function isGraphDrained(error: unknown): error is GraphDrained {
  return (error as { name?: unknown } | null)?.name === "GraphDrained";
}
