/**
 * How the serializer stores LangChain objects (messages, message chunks, documents): as
 * LangChain's own `{ id, kwargs }` constructor form, and how it rebuilds them with the class
 * of the user's `@langchain/core`. Nothing here imports LangChain: classes are learned from
 * the instances being stored, or from `loadLangChain()` before a checkpoint is read.
 */
import { SerializationError } from "../errors/storage.js";
import { classById, langchainLoaded, learnClass, loadLangChain } from "../langchain/load.js";
import { registeredByName } from "./serde-registry.js";

/** What a LangChain object stores: its class id and constructor arguments. */
export interface LangChainForm {
  id: string[];
  kwargs: Record<string, unknown>;
}

interface Serializable {
  lc_serializable?: boolean;
  toJSON(): { lc?: number; type?: string; id?: string[]; kwargs?: Record<string, unknown> };
  id?: unknown;
}

/**
 * The constructor form of a LangChain object, or undefined when `value` is not one.
 * Only called for class instances the serializer does not otherwise know, so plain state
 * never pays for the checks.
 */
export function langchainForm(value: object): LangChainForm | undefined {
  const candidate = value as Serializable;
  if (candidate.lc_serializable === true && typeof candidate.toJSON === "function") {
    const form = candidate.toJSON();
    if (form?.type !== "constructor" || !Array.isArray(form.id)) return undefined;
    const kwargs = { ...form.kwargs };
    // An id set after construction (`message.id = ...`) is not among the constructor
    // arguments LangChain serialises; keep it, or updates by id break after a reload.
    if (kwargs.id === undefined && candidate.id !== undefined && candidate.id !== null) kwargs.id = candidate.id;
    learnClass(form.id, value.constructor as new (...args: unknown[]) => unknown);
    return { id: form.id, kwargs };
  }
  if (isDocument(value)) {
    const id = ["langchain_core", "documents", "Document"];
    learnClass(id, value.constructor as new (...args: unknown[]) => unknown);
    const {
      pageContent,
      metadata,
      id: documentId,
    } = value as { pageContent: unknown; metadata: unknown; id?: unknown };
    return {
      id,
      kwargs: documentId === undefined ? { pageContent, metadata } : { pageContent, metadata, id: documentId },
    };
  }
  return undefined;
}

/** LangChain's `Document` is not `Serializable`; it is recognised by its class name and fields. */
function isDocument(value: object): boolean {
  return value.constructor?.name === "Document" && "pageContent" in value && "metadata" in value;
}

/** Thrown while reading a LangChain object before `@langchain/core` is loaded; the reader loads it and reads again. */
export class LangChainNotLoadedError extends SerializationError {
  constructor(readonly id: string) {
    super(
      `Stored value is a LangChain "${id}" and @langchain/core is not loaded in this process yet. ` +
        `Graphs load it themselves; when reading a checkpointer directly, first await loadLangChain() from @interlude/core.`,
    );
  }
}

/** LangChain's wrapper around a user's object that looks like a serialised one (`{ lc: ... }`) in `toJSON()`'s kwargs. */
const ESCAPED = "__lc_escaped__";

/**
 * `kwargs` as the object's constructor takes them: LangChain's escape wrappers removed (its own
 * `load()` does the same), their contents given back as they were, never revived.
 */
function unescaped(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  // Copied only where something changes: most kwargs have no wrapper, and messages are read often.
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = unescaped(value[i]);
      if (item !== value[i]) (out ??= [...value])[i] = item;
    }
    return out ?? value;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const record = value as Record<string, unknown>;
  let out: Record<string, unknown> | undefined;
  for (const key in record) {
    if (key === ESCAPED && Object.keys(record).length === 1) return record[ESCAPED];
    const field = unescaped(record[key]);
    if (field !== record[key]) (out ??= { ...record })[key] = field;
  }
  return out ?? value;
}

export function reviveLangChain(id: string[], kwargs: unknown): unknown {
  const Class = classById(id) ?? registeredByName(id.join("/"))?.Class;
  if (Class) return new (Class as new (kwargs: unknown) => unknown)(unescaped(kwargs));
  if (!langchainLoaded()) throw new LangChainNotLoadedError(id.join("/"));
  throw new SerializationError(
    `Stored value is a LangChain "${id.join("/")}", a class @langchain/core does not export from messages or documents. ` +
      `Register it before loading: registerSerializable("${id.join("/")}", Class).`,
  );
}

/**
 * Runs a checkpoint read; when it meets LangChain objects before `@langchain/core` was
 * loaded, loads it and reads again (reads have no side effects).
 */
export function readingLangChain<T>(read: () => Promise<T>): Promise<T> {
  // Not an async function: a plain `then` costs one promise where `return await` costs three,
  // and getState is a few microseconds.
  let first: Promise<T>;
  try {
    first = Promise.resolve(read());
  } catch (error) {
    return afterLangChainLoaded(error, read);
  }
  return first.then(undefined, (error: unknown) => afterLangChainLoaded(error, read));
}

/** The read again once `@langchain/core` is loaded, when `error` says it was missing; otherwise `error`. */
export async function afterLangChainLoaded<T>(error: unknown, read: () => Promise<T>): Promise<T> {
  if (!(error instanceof LangChainNotLoadedError)) throw error;
  await loadLangChain();
  return read();
}
