/**
 * The user's `@langchain/core`, loaded only when a graph meets a LangChain object. It is an
 * optional peer: graphs without messages never import it, and the classes revived from a
 * checkpoint are the user's own (one copy of the package, so `instanceof` holds).
 *
 * Loading is asynchronous (ESM) while reducers and the serializer are synchronous, so the
 * modules are loaded at an asynchronous edge (a run starting, a checkpoint being read) and
 * read synchronously afterwards through `langchainLoaded()`.
 */
import { InterludeError } from "../errors/base.js";

type AnyClass = new (...args: any[]) => any;

/** The parts of `@langchain/core` that Interlude uses, typed loosely (the package is optional). */
export interface LangChainModules {
  messages: Record<string, any>;
  documents: Record<string, any>;
}

/** `@langchain/core` is needed here but is not installed where Interlude can import it. */
export class LangChainMissingError extends InterludeError {
  constructor(why: string, cause?: unknown) {
    super(
      "LANGCHAIN_MISSING",
      `${why} needs @langchain/core, which could not be imported. Install it next to @interlude/core: npm install @langchain/core`,
      { cause },
    );
  }
}

let loaded: LangChainModules | undefined;
let loading: Promise<LangChainModules> | undefined;

/** Class by LangChain id (`langchain_core/messages/AIMessage`). */
const classes = new Map<string, AnyClass>();

/** Specifiers kept in variables so that the core's types never depend on the optional peer. */
const MESSAGES = "@langchain/core/messages";
const DOCUMENTS = "@langchain/core/documents";

/**
 * Imports the user's `@langchain/core` once. Called before running a graph whose state
 * holds messages, and when a checkpoint holding LangChain objects is read.
 */
export function loadLangChain(): Promise<LangChainModules> {
  if (loaded) return Promise.resolve(loaded);
  loading ??= Promise.all([import(MESSAGES), import(DOCUMENTS)]).then(
    ([messages, documents]) => {
      for (const [name, value] of Object.entries(messages as Record<string, unknown>)) {
        if (typeof value === "function" && value.prototype)
          learnClass(["langchain_core", "messages", name], value as AnyClass);
      }
      learnClass(["langchain_core", "documents", "Document"], (documents as { Document: AnyClass }).Document);
      loaded = { messages, documents };
      return loaded;
    },
    (error) => {
      loading = undefined;
      throw new LangChainMissingError("A LangChain object (a message, a document)", error);
    },
  );
  return loading;
}

/** The modules if `loadLangChain()` has finished, else undefined. */
export function langchainLoaded(): LangChainModules | undefined {
  return loaded;
}

export function learnClass(id: readonly string[], Class: AnyClass): void {
  const key = id.join("/");
  if (!classes.has(key)) classes.set(key, Class);
}

export function classById(id: readonly string[]): AnyClass | undefined {
  return classes.get(id.join("/"));
}
