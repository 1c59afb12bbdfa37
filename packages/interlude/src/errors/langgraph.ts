/**
 * Error classes of LangGraph.js's. `EmptyChannelError` is what reading an empty channel throws
 * (`channel.get()` used directly; graphs ask `isAvailable()` first). The others Interlude never
 * throws, kept so that code importing them links and its `instanceof` tests stay false: it
 * allows several subgraphs per node (LangGraph.js no longer throws `MultipleSubgraphsError`
 * either) and reports a remote graph's failures as the server's own errors (`RemoteException`).
 */
import { BaseLangGraphError, type BaseLangGraphErrorFields } from "./base.js";

export class EmptyChannelError extends BaseLangGraphError {
  constructor(message?: string, fields?: BaseLangGraphErrorFields) {
    super(message, fields);
    this.name = "EmptyChannelError";
  }
}

/** @deprecated LangGraph.js no longer throws it either. */
export class MultipleSubgraphsError extends BaseLangGraphError {
  constructor(message?: string, fields?: BaseLangGraphErrorFields) {
    super(message, fields);
    this.name = "MultipleSubgraphsError";
  }
}

export class RemoteException extends BaseLangGraphError {
  constructor(message?: string, fields?: BaseLangGraphErrorFields) {
    super(message, fields);
    this.name = "RemoteException";
  }
}
