/**
 * HTTP status of each error the server may raise, by its stable `code`. Anything not listed
 * is a 500 whose body says only "internal error" (details go to the server log).
 */
import { InterludeError } from "@interlude/core";
import { ServerError } from "../errors.js";
import { errorDetails } from "../runs/outcome.js";
import { isStorageFailure } from "../store/failures.js";

const STORAGE_FAILED = {
  error: "storage_failed",
  code: "STORAGE_FAILED",
  message:
    "The database refused the write (full, read-only or unreachable). Nothing of this request was applied; retry once storage is back.",
};

const STATUS: Record<string, number> = {
  AMBIGUOUS_RESUME: 400,
  EMPTY_INPUT: 400,
  GRAPH_VALIDATION: 400,
  INVALID_UPDATE: 400,
  MISSING_THREAD_ID: 400,
  SERIALIZATION: 400,
  UNKNOWN_INTERRUPT: 404,
  CHECKPOINT_NOT_FOUND: 404,
  NOTHING_TO_RESUME: 409,
  INTERRUPT_MISMATCH: 409,
  THREAD_BUSY: 409,
  CHECKPOINT_CONFLICT: 409,
  INVALID_RESUME: 422,
  STORAGE_FAILED: 503,
};

export function statusOf(code: string | undefined): number | undefined {
  return code ? STATUS[code] : undefined;
}

export function errorResponse(error: unknown): { status: number; body: Record<string, unknown> } {
  if (error instanceof ServerError) return { status: error.status, body: error.toJSON() };
  if (error instanceof URIError)
    return {
      status: 400,
      body: { error: "invalid_path", code: "INVALID_PATH", message: "The URL has a malformed %-escape." },
    };
  if (isStorageFailure(error) && !(error instanceof InterludeError)) return { status: 503, body: STORAGE_FAILED };
  if (error instanceof InterludeError && STATUS[error.code]) {
    return {
      status: STATUS[error.code]!,
      body: { error: error.code.toLowerCase(), code: error.code, message: error.message, ...errorDetails(error) },
    };
  }
  return {
    status: 500,
    body: { error: "internal", code: "INTERNAL", message: "Internal server error. The server log has the details." },
  };
}
