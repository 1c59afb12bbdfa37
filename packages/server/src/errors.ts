/**
 * The server's own failures. Each has a stable `code` and an HTTP status; the body is
 * `{ error: <code in snake case>, code, message, ...details }` and never carries a stack.
 */
import { InterludeError } from "@interlude/core";

export class ServerError extends InterludeError {
  constructor(
    code: string,
    readonly status: number,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(code, message);
  }
  override toJSON(): Record<string, unknown> {
    return { error: this.code.toLowerCase(), code: this.code, message: this.message, ...this.details };
  }
}

export class NotFoundError extends ServerError {
  constructor(what: "assistant" | "thread" | "run" | "checkpoint" | "interrupt", id: string) {
    super("NOT_FOUND", 404, `No ${what} "${id}".`, { [`${what}_id`]: id });
  }
}

export class UnauthorizedError extends ServerError {
  constructor() {
    super("UNAUTHORIZED", 401, "Missing or unknown API key. Send it in the x-api-key header.");
  }
}

export class InvalidRequestError extends ServerError {
  constructor(field: string, message: string, issues: unknown[] = []) {
    super("INVALID_REQUEST", 422, `${field || "body"}: ${message}`, { field, issues });
  }
}

/** multitask_strategy "reject" (the default) on a thread that has a run in progress. */
export class ThreadRunningError extends ServerError {
  constructor(threadId: string) {
    super(
      "THREAD_BUSY",
      409,
      `Thread "${threadId}" is already running a task. Wait for it to finish or choose a different multitask strategy (enqueue, interrupt, rollback).`,
      { thread_id: threadId },
    );
  }
}

export class ConflictError extends ServerError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super("CONFLICT", 409, message, details);
  }
}

/** Somebody answered this interrupt first; nothing of this answer was applied. */
export class AlreadyAnsweredError extends ServerError {
  constructor(answer: { thread_id: string; interrupt_id: string; by: string; answer: unknown; at: string }) {
    super(
      "ALREADY_ANSWERED",
      409,
      `Interrupt "${answer.interrupt_id}" was already answered by ${answer.by} at ${answer.at}. This answer was not applied.`,
      {
        thread_id: answer.thread_id,
        interrupt_id: answer.interrupt_id,
        by: answer.by,
        answer: answer.answer,
        at: answer.at,
      },
    );
  }
}
