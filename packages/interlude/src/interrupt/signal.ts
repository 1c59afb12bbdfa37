import { interruptId, payloadDigest } from "../algo/hash.js";
import { INTERRUPT } from "../constants.js";
import { BaseLangGraphError } from "../errors/base.js";
import { currentTask } from "../runner/scope.js";
import type { Interrupt, StoredInterrupt } from "./record.js";

/**
 * What a node throws to stop without failing: an interrupt, or a command for the parent graph.
 * Code that catches errors in a node rethrows these (`if (isGraphBubbleUp(e)) throw e`), as
 * with LangGraph.
 */
export class GraphBubbleUp extends BaseLangGraphError {
  get is_bubble_up(): true {
    return true;
  }
}

/** True for an interrupt or a command for the parent graph, which a node's catch must rethrow. */
export function isGraphBubbleUp(error: unknown): error is GraphBubbleUp {
  return error instanceof GraphBubbleUp || (error as { is_bubble_up?: unknown } | null)?.is_bubble_up === true;
}

/**
 * Thrown by `interrupt()` to stop the node. Not an error: the runner turns it into a paused
 * task. (Named as in LangGraph so code that checks for it keeps working.)
 */
export class GraphInterrupt extends GraphBubbleUp {
  static get unminifiable_name(): string {
    return "GraphInterrupt";
  }
  readonly interrupts: StoredInterrupt[];
  /** Without interrupts (as LangGraph.js allows, e.g. a tool that stops its run): a pause with no question. */
  constructor(interrupts: StoredInterrupt[] = []) {
    // A pause, not a failure: no stack trace. Capturing one (with async frames) cost ~10 us per
    // interrupt, ~5% of a fan-out whose tasks ask questions.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super(`GraphInterrupt: ${interrupts.length} pending interrupt(s)`);
    } finally {
      Error.stackTraceLimit = limit;
    }
    this.name = "GraphInterrupt";
    this.interrupts = interrupts;
  }
}

/**
 * Thrown by a node to pause the graph with `value` shown to the caller, without asking for an
 * answer (LangGraph's dynamic breakpoint): continue with `invoke(null)`, usually after
 * `updateState`, and the node runs again.
 */
export class NodeInterrupt extends GraphInterrupt {
  static override get unminifiable_name(): string {
    return "NodeInterrupt";
  }
  constructor(value: unknown) {
    const scope = currentTask();
    const ns = scope?.ns ?? "";
    const index = scope ? scope.interruptCounter++ : 0;
    super([{ id: interruptId(ns, index), value, digest: payloadDigest(value), ns, index }]);
    this.name = "NodeInterrupt";
  }
}

export function isGraphInterrupt(error: unknown): error is GraphInterrupt {
  return error instanceof GraphInterrupt;
}

/** True when a run result stopped at interrupts (`result.__interrupt__`). */
export function isInterrupted<Value = unknown>(value: unknown): value is { [INTERRUPT]: Interrupt<Value>[] } {
  return typeof value === "object" && value !== null && Array.isArray((value as Record<string, unknown>)[INTERRUPT]);
}

/**
 * Thrown by a subgraph node that returned `Command({ graph: Command.PARENT })`; the parent's
 * runner catches it and applies the command as the output of the task that ran the subgraph.
 */
export class ParentCommand extends GraphBubbleUp {
  static get unminifiable_name(): string {
    return "ParentCommand";
  }
  constructor(readonly command: unknown) {
    super("Command for the parent graph");
    this.name = "ParentCommand";
  }
}

export function isParentCommand(error: unknown): error is ParentCommand {
  return error instanceof ParentCommand;
}

/** The run stopped because a drain was asked for (`RunControl`); its last step is saved. */
export class GraphDrained extends GraphBubbleUp {
  static get unminifiable_name(): string {
    return "GraphDrained";
  }
  constructor(readonly reason = "shutdown") {
    super(`Graph drained: ${reason}`);
    this.name = "GraphDrained";
  }
}

export function isGraphDrained(error: unknown): error is GraphDrained {
  return (error as { name?: unknown } | null)?.name === "GraphDrained";
}
