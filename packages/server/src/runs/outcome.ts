/** How a run's failure is shown: to SSE clients, in run and thread records, in `wait` results. */
import {
  AmbiguousResumeError,
  type ErrorCode,
  InterludeError,
  InterruptMismatchError,
  InvalidResumeError,
  NothingToResumeError,
  ThreadBusyError,
  UnknownInterruptError,
} from "@interlude/core";

export interface ErrorBody {
  error: string;
  message: string;
  code?: ErrorCode;
  [detail: string]: unknown;
}

export function errorBody(error: unknown): ErrorBody {
  if (error instanceof InterludeError)
    return { error: error.name, message: error.message, code: error.code, ...error.details };
  if (error instanceof Error) return { error: error.name, message: error.message };
  return { error: "Error", message: String(error) };
}

/** Errors that refuse the answers a run carried: the thread stays paused, nothing ran. */
export function isRefusal(error: unknown): boolean {
  return (
    error instanceof InvalidResumeError ||
    error instanceof InterruptMismatchError ||
    error instanceof AmbiguousResumeError ||
    error instanceof UnknownInterruptError ||
    error instanceof NothingToResumeError
  );
}

export function isThreadBusy(error: unknown): boolean {
  return error instanceof ThreadBusyError;
}
