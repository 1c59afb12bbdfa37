/**
 * `@langchain/core`, loaded on first use. It is an optional peer: graphs that never stream
 * messages, never pass callbacks and never call `streamEvents` do not load it at all.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { MissingPeerDependencyError } from "../errors/graph.js";

export interface LangChain {
  CallbackManager: typeof import("@langchain/core/callbacks/manager").CallbackManager;
  BaseCallbackHandler: typeof import("@langchain/core/callbacks/base").BaseCallbackHandler;
  messages: typeof import("@langchain/core/messages");
  Runnable: typeof import("@langchain/core/runnables").Runnable;
  /** Makes a config the ambient one: runnables called without a config inherit it. */
  runWithConfig<T>(config: Record<string, unknown>, body: () => T): T;
}

let loading: Promise<LangChain> | undefined;

async function load(feature: string): Promise<LangChain> {
  try {
    const [manager, base, messages, runnables, singletons] = await Promise.all([
      import("@langchain/core/callbacks/manager"),
      import("@langchain/core/callbacks/base"),
      import("@langchain/core/messages"),
      import("@langchain/core/runnables"),
      import("@langchain/core/singletons"),
    ]);
    const ambient = singletons.AsyncLocalStorageProviderSingleton;
    // LangChain keeps the ambient config in a global AsyncLocalStorage that its host sets up
    // (LangGraph does it on import); a no-op when someone already has.
    ambient.initializeGlobalInstance(new AsyncLocalStorage());
    return {
      CallbackManager: manager.CallbackManager,
      BaseCallbackHandler: base.BaseCallbackHandler,
      messages,
      Runnable: runnables.Runnable,
      runWithConfig: (config, body) => ambient.runWithConfig(config, body),
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
