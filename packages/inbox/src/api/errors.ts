/** Failures the inbox treats differently, each as its own class. */
import type { AnswerIssue, Resolution } from "./types";

export class ApiError extends Error {
  readonly status: number;
  readonly body: unknown;
  constructor(status: number, body: unknown, fallback: string) {
    super(messageOf(body) ?? fallback);
    this.status = status;
    this.body = body;
  }
}

/** 401/403: the API key is missing or not accepted. */
export class UnauthorizedError extends ApiError {}

/** 409 `already_answered`: another reviewer got there first. */
export class AlreadyAnsweredError extends ApiError {
  readonly resolution: Resolution;
  constructor(body: Resolution) {
    super(409, body, "This interrupt was already answered.");
    this.resolution = body;
  }
}

/** 422 with `issues`: the answer failed the interrupt's schema; the interrupt stays pending. */
export class InvalidAnswerError extends ApiError {
  readonly issues: AnswerIssue[];
  constructor(body: { issues: AnswerIssue[] }) {
    super(422, body, "The answer is not valid.");
    this.issues = body.issues;
  }
}

function messageOf(body: unknown): string | undefined {
  if (!body || typeof body !== "object") return typeof body === "string" && body ? body : undefined;
  const b = body as Record<string, unknown>;
  for (const key of ["message", "detail", "error"]) if (typeof b[key] === "string") return b[key] as string;
  return undefined;
}

export function errorFor(status: number, body: unknown): ApiError {
  const b = (body ?? {}) as Record<string, unknown>;
  if (status === 401 || status === 403) return new UnauthorizedError(status, body, "The API key was not accepted.");
  if (status === 409 && b.error === "already_answered") return new AlreadyAnsweredError(b as unknown as Resolution);
  if (status === 422 && Array.isArray(b.issues)) return new InvalidAnswerError(b as { issues: AnswerIssue[] });
  return new ApiError(status, body, `The server answered ${status}.`);
}
