/**
 * Interrupts and their answers as records: the public `Interrupt`, and what is stored with a
 * paused task (its questions, the answers given so far, its `task()` results).
 */
import { TASK_CALL_SLOT } from "../constants.js";

/**
 * A pending question for a human, as callers see it (`result.__interrupt__`,
 * `snapshot.interrupts`). Plain data: it is stored and sent over the wire as-is.
 */
export interface Interrupt<Value = any> {
  /** Stable id; answer with `new Command({ resume: { [id]: answer } })`. */
  id: string;
  value: Value;
  /** The key given with `interrupt(value, { key })`, when there is one. */
  key?: string;
  /** JSON Schema of the expected answer, when the interrupt declared a `responseSchema` that can describe itself. */
  responseSchema?: Record<string, unknown>;
  /**
   * Namespace of the (sub)graph task that asked, `node:taskId|child:taskId`: only on
   * `snapshot.interrupts` (an Interlude addition), so the `{ id, value }` of results and
   * tasks compare equal to LangGraph's.
   */
  ns?: string;
}

/** An interrupt as stored with its task: the public record plus what binds answers to it. */
export interface StoredInterrupt extends Interrupt {
  /** Namespace of the (sub)graph task that asked. */
  ns?: string;
  /** Position among the interrupts of its task (when it has no key). */
  index?: number;
  /** Digest of `value`: an answer is only used for the question it was given for. */
  digest: string;
}

/** An interrupt as LangGraph shows it (`{ id, value }`), plus its key and answer schema when it has them. */
export function publicInterrupt(stored: StoredInterrupt): Interrupt {
  const out: Interrupt = { id: stored.id, value: stored.value };
  if (stored.key !== undefined && !stored.key.startsWith(TASK_CALL_SLOT)) out.key = stored.key;
  if (stored.responseSchema !== undefined) out.responseSchema = stored.responseSchema;
  return out;
}

/** With the namespace of the task that asked: `snapshot.interrupts`, an Interlude addition. */
export function locatedInterrupt(stored: StoredInterrupt): Interrupt {
  const out = publicInterrupt(stored);
  if (stored.ns) out.ns = stored.ns;
  return out;
}

/** An answer already given to an interrupt of this task. */
export interface GivenAnswer {
  id: string;
  /** Digest of the question it answered. */
  digest: string;
  value: unknown;
  index?: number;
  key?: string;
  /** The question, kept for error messages. */
  question?: unknown;
  /** Sent with the current run and not yet checked against the interrupt's `responseSchema`. */
  fresh?: boolean;
}

/** An answer sent with the current run, with the question the caller saw when answering. */
export interface FreshAnswer {
  value: unknown;
  digest: string;
  question: unknown;
}

/** A saved result of a `task()` call inside the node. */
export interface TaskCallRecord {
  name: string;
  ok: boolean;
  value: unknown;
}
