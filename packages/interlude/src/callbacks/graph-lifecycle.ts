/**
 * `GraphCallbackHandler`: a callback handler told when a run pauses for a person and when one
 * resumes, as LangGraph.js's is. Passed in `callbacks` like any LangChain handler; LangGraph's
 * own class works too (both carry the same brand). It needs no LangChain at import: LangChain
 * takes any handler with a `name` as it is.
 */
import type { Interrupt } from "../interrupt/record.js";

const GRAPH_CALLBACK_HANDLER = Symbol.for("langgraph.graph_callback_handler");

/** Where the run stood: `pending` at an interrupt or on resuming, else the static breakpoint it stopped at. */
export type GraphLifecycleStatus =
  | "pending"
  | "done"
  | "interrupt_before"
  | "interrupt_after"
  | "out_of_steps"
  | "draining";

/** A run (or a subgraph's, `checkpointNs` not empty) continued from a checkpoint: an answer or `invoke(null)`. */
export interface GraphResumeEvent {
  /** The graph's chain run, as its `handleChainStart` was told. */
  readonly runId: string | undefined;
  readonly status: GraphLifecycleStatus;
  /** The checkpoint it continues from. */
  readonly checkpointId: string;
  readonly checkpointNs: readonly string[];
}

/** The run paused: at interrupts, or at a static breakpoint (no interrupts). Told for the root graph only. */
export interface GraphInterruptEvent extends GraphResumeEvent {
  readonly interrupts: readonly Interrupt[];
}

export type GraphLifecycleEvent = GraphInterruptEvent | GraphResumeEvent;

/**
 * Extend this and pass an instance in `callbacks` to observe pauses and resumes. Its methods are
 * awaited before the run goes on; an error they throw is logged, or fails the run when
 * `raiseError` is set (the pause is saved by then).
 */
export class GraphCallbackHandler {
  name = "GraphCallbackHandler";
  readonly [GRAPH_CALLBACK_HANDLER] = true;
  raiseError = false;
  /** Called once the root graph has paused, before its chain run ends. */
  handleInterrupt?(event: GraphInterruptEvent): void | Promise<void>;
  /** Called before a resumed run (or subgraph) runs its first node. */
  handleResume?(event: GraphResumeEvent): void | Promise<void>;

  static isInstance(value: unknown): value is GraphCallbackHandler {
    return (
      typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[GRAPH_CALLBACK_HANDLER] === true
    );
  }
}

/** The graph handlers among a run's `callbacks` (an array, or a callback manager's handlers). */
export function graphHandlersOf(callbacks: unknown): GraphCallbackHandler[] | undefined {
  const all = Array.isArray(callbacks) ? callbacks : (callbacks as { handlers?: unknown[] } | null)?.handlers;
  const handlers = all?.filter(GraphCallbackHandler.isInstance);
  return handlers?.length ? handlers : undefined;
}

/** Tells each handler in turn, awaiting each. */
export async function tellLifecycle(
  handlers: readonly GraphCallbackHandler[],
  event: GraphLifecycleEvent,
): Promise<void> {
  const paused = "interrupts" in event;
  for (const handler of handlers) {
    try {
      if (paused) await handler.handleInterrupt?.(event as GraphInterruptEvent);
      else await handler.handleResume?.(event);
    } catch (error) {
      const method = paused ? "handleInterrupt" : "handleResume";
      (handler.raiseError ? console.error : console.warn)(
        `Error in handler ${handler.constructor.name}, ${method}: ${error}`,
      );
      if (handler.raiseError) throw error;
    }
  }
}
