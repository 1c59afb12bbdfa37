/**
 * `@langchain/core` with its own types, for the callbacks code (tracing, stream mode
 * "messages", `streamEvents`). Loading is `./load.ts`'s; this file only names the types, and
 * is kept out of the root entry's declarations, which must compile without the peer.
 */
import type { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { CallbackManager } from "@langchain/core/callbacks/manager";
import type * as messages from "@langchain/core/messages";
import type { Runnable } from "@langchain/core/runnables";
import { type LangChainModules, loadLangChain } from "./load.js";

export interface LangChain {
  CallbackManager: typeof CallbackManager;
  BaseCallbackHandler: typeof BaseCallbackHandler;
  messages: typeof messages;
  Runnable: typeof Runnable;
  /** Makes a config the ambient one: runnables called without a config inherit it. */
  runWithConfig<T>(config: Record<string, unknown>, body: () => T): T;
}

function typed(modules: LangChainModules): LangChain {
  return {
    CallbackManager: modules.callbacksManager.CallbackManager,
    BaseCallbackHandler: modules.callbacksBase.BaseCallbackHandler,
    messages: modules.messages as typeof messages,
    Runnable: modules.runnables.Runnable,
    runWithConfig: modules.runWithConfig,
  };
}

/** Loads `@langchain/core` (once, see `loadLangChain`) for `feature`, with its types. */
export async function loadTypedLangChain(feature: string): Promise<LangChain> {
  return typed(await loadLangChain(feature));
}
