/**
 * The HTTP answer to an error: its status is the one the error carries (`ERROR_STATUS` in the
 * core, by code). An error without one is a 500 whose body says only "internal error"
 * (details go to the server log).
 */
import { InterludeError } from "@interlude/core";
import { ServerError } from "../errors.js";
import { isStorageFailure } from "../store/failures.js";

const STORAGE_FAILED =
  "The database failed (full, read-only or unreachable). Retry once storage is back: an answer this request gave that was taken before the failure is then refused as ALREADY_ANSWERED.";

export function errorResponse(error: unknown): { status: number; body: Record<string, unknown> } {
  if (error instanceof ServerError) return { status: error.status, body: error.toJSON() };
  if (error instanceof URIError)
    return errorResponse(new ServerError("INVALID_PATH", "The URL has a malformed %-escape."));
  if (isStorageFailure(error) && !(error instanceof InterludeError))
    return errorResponse(new ServerError("STORAGE_FAILED", STORAGE_FAILED));
  if (error instanceof InterludeError && error.status !== undefined) {
    return {
      status: error.status,
      body: { error: error.code.toLowerCase(), code: error.code, message: error.message, ...error.details },
    };
  }
  return errorResponse(new ServerError("INTERNAL", "Internal server error. The server log has the details."));
}
