/**
 * Matching a `Command({ resume })` to the interrupts that are waiting. Pure: given what is
 * pending and what was sent, decide which answer goes to which interrupt, or refuse.
 */

import { INTERRUPT_ID_PATTERN } from "../algo/hash.js";
import {
  AmbiguousResumeError,
  NothingToResumeError,
  type NothingToResumeReason,
  UnknownInterruptError,
} from "../errors/resume.js";

export interface PendingQuestion {
  id: string;
  value: unknown;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A resume value is a map by id when it is a plain object whose keys all look like interrupt ids. */
export function isResumeMap(resume: unknown): resume is Record<string, unknown> {
  if (!isPlainObject(resume)) return false;
  const keys = Object.keys(resume);
  return keys.length > 0 && keys.every((k) => INTERRUPT_ID_PATTERN.test(k));
}

/**
 * @param emptyReason why nothing is pending, used when `pending` is empty.
 * @param positional LangGraph's rules: an answer with nothing pending is dropped, and a plain
 * answer while several interrupts wait goes to each of them.
 * @returns interrupt id -> answer
 */
export function matchResume(
  threadId: string,
  pending: readonly PendingQuestion[],
  resume: unknown,
  emptyReason: NothingToResumeReason,
  positional = false,
): Map<string, unknown> {
  if (pending.length === 0) {
    if (positional && emptyReason !== "unknown_thread") return new Map();
    throw new NothingToResumeError(threadId, emptyReason);
  }
  if (isResumeMap(resume)) {
    const known = new Set(pending.map((p) => p.id));
    const unknown = Object.keys(resume).filter((id) => !known.has(id));
    if (unknown.length) throw new UnknownInterruptError(unknown, pending);
    return new Map(Object.entries(resume));
  }
  if (pending.length > 1) {
    if (positional) return new Map(pending.map((p) => [p.id, resume]));
    throw new AmbiguousResumeError(pending);
  }
  return new Map([[pending[0]!.id, resume]]);
}
