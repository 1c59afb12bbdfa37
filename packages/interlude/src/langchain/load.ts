/**
 * The user's `@langchain/core`, loaded once, only when a graph needs it: its state holds
 * messages, a checkpoint holding LangChain objects is read, or a run passes callbacks,
 * streams messages or calls `streamEvents`. It is an optional peer: graphs that do none of
 * these never import it, and the classes revived from a checkpoint are the user's own (one
 * copy of the package, so `instanceof` holds and its handlers are the ones the models use).
 *
 * Loading is asynchronous (ESM) while reducers and the serializer are synchronous, so the
 * modules are loaded at an asynchronous edge (a run starting, a checkpoint being read) and
 * read synchronously afterwards through `langchainLoaded()`. The modules are typed loosely
 * here so that the root entry's declarations never name the peer; `./typed.ts` gives the
 * callbacks code LangChain's own types.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { InterludeError } from "../errors/base.js";
import { ambientRunner } from "./ambient.js";

type AnyClass = new (...args: any[]) => any;

/** The parts of `@langchain/core` that Interlude uses, typed loosely (the package is optional). */
export interface LangChainModules {
  messages: Record<string, any>;
  documents: Record<string, any>;
  callbacksManager: Record<string, any>;
  callbacksBase: Record<string, any>;
  runnables: Record<string, any>;
  /** `language_models/stream` (LangChain 1.3.4 and later), or undefined in older versions. */
  modelStream: Record<string, any> | undefined;
  /** `runnables/graph`: the Graph a Runnable's `getGraph()` gives. */
  runnablesGraph: Record<string, any> | undefined;
  /** Makes a config the ambient one: runnables called without a config inherit it. */
  runWithConfig<T>(config: Record<string, unknown>, body: () => T): T;
}

/** `@langchain/core` is needed here but is not installed where Interlude can import it. */
export class LangChainMissingError extends InterludeError {
  constructor(feature: string, cause?: unknown) {
    super(
      "LANGCHAIN_MISSING",
      `${feature} needs @langchain/core, which could not be imported. Install it next to @interlude/core: npm install @langchain/core`,
      { cause },
    );
  }
}

/** Something needs `@langchain/core` synchronously, and it has not been loaded in this process yet. */
export class LangChainNotReadyError extends InterludeError {
  constructor(feature: string) {
    super(
      "LANGCHAIN_NOT_LOADED",
      `${feature} needs @langchain/core, which is not loaded in this process yet. ` +
        "First await loadLangChain() from @interlude/core (once, at start-up).",
    );
  }
}

let loaded: LangChainModules | undefined;
let loading: Promise<LangChainModules> | undefined;

/** Class by LangChain id (`langchain_core/messages/AIMessage`). */
const classes = new Map<string, AnyClass>();

/** Specifiers kept in variables so that the core's types never depend on the optional peer. */
const SPECIFIERS = [
  "@langchain/core/messages",
  "@langchain/core/documents",
  "@langchain/core/callbacks/manager",
  "@langchain/core/callbacks/base",
  "@langchain/core/runnables",
  "@langchain/core/singletons",
];
const MODEL_STREAM = "@langchain/core/language_models/stream";
const RUNNABLES_GRAPH = "@langchain/core/runnables/graph";

async function importAll(): Promise<LangChainModules> {
  const [messages, documents, callbacksManager, callbacksBase, runnables, singletons, modelStream, runnablesGraph] =
    await Promise.all([
      ...SPECIFIERS.map((specifier) => import(specifier)),
      // Newer than the rest: an older @langchain/core loads without it.
      import(MODEL_STREAM).catch(() => undefined),
      import(RUNNABLES_GRAPH).catch(() => undefined),
    ]);
  for (const [name, value] of Object.entries(messages as Record<string, unknown>)) {
    if (typeof value === "function" && value.prototype)
      learnClass(["langchain_core", "messages", name], value as AnyClass);
  }
  learnClass(["langchain_core", "documents", "Document"], (documents as { Document: AnyClass }).Document);
  const ambient = singletons.AsyncLocalStorageProviderSingleton;
  // LangChain keeps the ambient config in a global AsyncLocalStorage that its host sets up
  // (LangGraph does it on import); a no-op when someone already has.
  ambient.initializeGlobalInstance(new AsyncLocalStorage());
  return {
    messages,
    documents,
    callbacksManager,
    callbacksBase,
    runnables,
    modelStream,
    runnablesGraph,
    runWithConfig: ambientRunner(ambient),
  };
}

/**
 * Imports the user's `@langchain/core` once. `feature` names what needs it, for the error
 * when it is not installed (a later call may succeed once it is).
 */
export function loadLangChain(feature = "A LangChain object (a message, a document)"): Promise<LangChainModules> {
  if (loaded) return Promise.resolve(loaded);
  loading ??= importAll().then(
    (modules) => {
      loaded = modules;
      return modules;
    },
    (error) => {
      loading = undefined;
      throw new LangChainMissingError(feature, error);
    },
  );
  return loading;
}

/** The modules if `loadLangChain()` has finished, else undefined. */
export function langchainLoaded(): LangChainModules | undefined {
  return loaded;
}

/** LangChain's `ChatModelStream` (an AI message as it streams), for `feature`. */
export function chatModelStreamClass(feature: string): new (source: AsyncIterable<unknown>) => any {
  if (!loaded) throw new LangChainNotReadyError(feature);
  const Class = loaded.modelStream?.ChatModelStream;
  if (!Class)
    throw new LangChainMissingError(`${feature} (LangChain's ChatModelStream, @langchain/core 1.3.4 or later)`);
  return Class;
}

export function learnClass(id: readonly string[], Class: AnyClass): void {
  const key = id.join("/");
  if (!classes.has(key)) classes.set(key, Class);
}

export function classById(id: readonly string[]): AnyClass | undefined {
  return classes.get(id.join("/"));
}
