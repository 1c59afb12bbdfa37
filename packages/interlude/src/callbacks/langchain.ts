/**
 * `@langchain/core`, loaded on first use. It is an optional peer: graphs that never stream
 * messages, never pass callbacks and never call `streamEvents` do not load it at all.
 */
import { MissingPeerDependencyError } from "../errors/graph.js";

export interface LangChain {
  CallbackManager: typeof import("@langchain/core/callbacks/manager").CallbackManager;
  BaseCallbackHandler: typeof import("@langchain/core/callbacks/base").BaseCallbackHandler;
  messages: typeof import("@langchain/core/messages");
  Runnable: typeof import("@langchain/core/runnables").Runnable;
}

let loading: Promise<LangChain> | undefined;

async function load(feature: string): Promise<LangChain> {
  try {
    const [manager, base, messages, runnables] = await Promise.all([
      import("@langchain/core/callbacks/manager"),
      import("@langchain/core/callbacks/base"),
      import("@langchain/core/messages"),
      import("@langchain/core/runnables"),
    ]);
    return {
      CallbackManager: manager.CallbackManager,
      BaseCallbackHandler: base.BaseCallbackHandler,
      messages,
      Runnable: runnables.Runnable,
    };
  } catch (error) {
    loading = undefined;
    throw new MissingPeerDependencyError("@langchain/core", feature, { cause: error });
  }
}

/** The user's own `@langchain/core` (one copy, so its handlers and messages are the ones the user's models use). */
export function loadLangChain(feature: string): Promise<LangChain> {
  loading ??= load(feature);
  return loading;
}
