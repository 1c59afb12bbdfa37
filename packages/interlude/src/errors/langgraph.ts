/**
 * Error classes of LangGraph.js's. `EmptyChannelError` is what reading an empty channel throws
 * (`channel.get()` used directly; graphs ask `isAvailable()` first). The others Interlude never
 * throws, kept so that code importing them links and its `instanceof` tests stay false: it
 * allows several subgraphs per node (LangGraph.js no longer throws `MultipleSubgraphsError`
 * either, nor fills the set `getSubgraphsSeenSet` gives) and reports a remote graph's failures
 * as the server's own errors (`RemoteException`).
 */
import { BaseLangGraphError, type BaseLangGraphErrorFields } from "./base.js";

export class EmptyChannelError extends BaseLangGraphError {
  static get unminifiable_name(): string {
    return "EmptyChannelError";
  }
  constructor(message?: string, fields?: BaseLangGraphErrorFields) {
    super(message, fields);
    this.name = "EmptyChannelError";
  }
}

/** @deprecated LangGraph.js no longer throws it either. */
export class MultipleSubgraphsError extends BaseLangGraphError {
  /** Spelt as LangGraph.js spells it, without the "s". */
  static get unminifiable_name(): string {
    return "MultipleSubgraphError";
  }
  constructor(message?: string, fields?: BaseLangGraphErrorFields) {
    super(message, fields);
    this.name = "MultipleSubgraphsError";
  }
}

/**
 * @deprecated The process-wide set of subgraph namespaces LangGraph.js once filled to raise
 * `MultipleSubgraphsError`; it no longer does. The same set under the same global key, so code
 * that reads or clears it sees what it would see with LangGraph.js, in one process with both.
 */
export function getSubgraphsSeenSet(): Set<unknown> {
  const global = globalThis as unknown as Record<symbol, Set<unknown> | undefined>;
  const key = Symbol.for("LG_CHECKPOINT_SEEN_NS_SET");
  global[key] ??= new Set();
  return global[key];
}

export class RemoteException extends BaseLangGraphError {
  static get unminifiable_name(): string {
    return "RemoteException";
  }
  constructor(message?: string, fields?: BaseLangGraphErrorFields) {
    super(message, fields);
    this.name = "RemoteException";
  }
}
