/** How a run's failure is shown: to SSE clients, in run and thread records, in `wait` results. */
import { InterludeError } from "@interlude/core";

export interface ErrorBody {
  error: string;
  message: string;
  code?: string;
  [detail: string]: unknown;
}

/** The structured fields of Interlude's errors, in snake case. */
export function errorDetails(error: InterludeError): Record<string, unknown> {
  const e = error as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  if (e.interruptId !== undefined) out.interrupt_id = e.interruptId;
  if (e.issues !== undefined) out.issues = e.issues;
  if (e.pending !== undefined) out.pending = e.pending;
  if (e.unknownIds !== undefined) out.unknown_ids = e.unknownIds;
  if (e.reason !== undefined) out.reason = e.reason;
  if (e.node !== undefined) out.node = e.node;
  if (e.threadId !== undefined) out.thread_id = e.threadId;
  return out;
}

export function errorBody(error: unknown): ErrorBody {
  if (error instanceof InterludeError)
    return { error: error.name, message: error.message, code: error.code, ...errorDetails(error) };
  if (error instanceof Error) return { error: error.name, message: error.message };
  return { error: "Error", message: String(error) };
}

/** Errors that refuse the answers a run carried: the thread stays paused, nothing ran. */
const REFUSALS = new Set([
  "INVALID_RESUME",
  "INTERRUPT_MISMATCH",
  "AMBIGUOUS_RESUME",
  "UNKNOWN_INTERRUPT",
  "NOTHING_TO_RESUME",
]);

export function isRefusal(error: unknown): boolean {
  return error instanceof InterludeError && REFUSALS.has(error.code);
}

export function isThreadBusy(error: unknown): boolean {
  return error instanceof InterludeError && error.code === "THREAD_BUSY";
}
