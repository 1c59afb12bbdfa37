import { InterludeError } from "./base.js";

/** Which of a node's clocks ran out: the whole attempt's, or the one reset by its progress. */
export type TimeoutKind = "run" | "idle";

/**
 * A node's attempt ran past its `timeout` (`addNode(name, fn, { timeout })`). The attempt's
 * signal was aborted and whatever it does afterwards is dropped; the node's retry policy
 * decides whether it runs again. Fields and message as LangGraph's.
 */
export class NodeTimeoutError extends InterludeError {
  static get unminifiable_name(): string {
    return "NodeTimeoutError";
  }
  readonly node: string;
  readonly kind: TimeoutKind;
  /** The limit that ran out, in ms. */
  readonly timeout: number;
  /** Ms from the attempt's start. */
  readonly elapsed: number;
  readonly runTimeout?: number;
  readonly idleTimeout?: number;
  constructor(fields: { node: string; kind: TimeoutKind; elapsed: number; runTimeout?: number; idleTimeout?: number }) {
    const { node, kind, elapsed, runTimeout, idleTimeout } = fields;
    const timeout = kind === "idle" ? idleTimeout : runTimeout;
    // As LangGraph.js: the error names the limit that ran out, so it must be given.
    if (timeout === undefined)
      throw new TypeError(
        `NodeTimeoutError of kind "${kind}" needs ${kind === "idle" ? "idleTimeout" : "runTimeout"}.`,
      );
    super(
      "NODE_TIMEOUT",
      kind === "idle"
        ? `Node "${node}" exceeded its idle timeout of ${timeout}ms without making progress (elapsed: ${elapsed}ms).`
        : `Node "${node}" exceeded its run timeout of ${timeout}ms (elapsed: ${elapsed}ms).`,
      { details: { node, kind, timeout, elapsed } },
    );
    this.node = node;
    this.kind = kind;
    this.timeout = timeout;
    this.elapsed = elapsed;
    this.runTimeout = runTimeout;
    this.idleTimeout = idleTimeout;
  }
}

export function isNodeTimeoutError(error: unknown): error is NodeTimeoutError {
  return error instanceof NodeTimeoutError;
}

/** What a node's `errorHandler` receives: the node that failed, and its error (after its retries). */
export class NodeError {
  static get unminifiable_name(): string {
    return "NodeError";
  }
  constructor(
    readonly node: string,
    readonly error: Error,
  ) {}
}

export function isNodeError(value: unknown): value is NodeError {
  return value instanceof NodeError;
}
