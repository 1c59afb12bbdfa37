/**
 * The server's own failures. Each has a stable `code` whose HTTP status `ERROR_STATUS` gives
 * (or one passed here); the body is `{ error: <code in snake case>, code, message, ...details }`
 * and never carries a stack.
 */
import { type ErrorCode, InterludeError, statusOfCode } from "@interlude/core";

export class ServerError extends InterludeError {
  declare readonly status: number;
  constructor(code: ErrorCode, message: string, details: Record<string, unknown> = {}, status?: number) {
    super(code, message, { details, status: status ?? statusOfCode(code) ?? 500 });
  }
  override toJSON(): Record<string, unknown> {
    return { error: this.code.toLowerCase(), code: this.code, message: this.message, ...this.details };
  }
}

export class NotFoundError extends ServerError {
  constructor(what: "assistant" | "thread" | "run" | "checkpoint" | "interrupt" | "cron", id: string) {
    super("NOT_FOUND", `No ${what} "${id}".`, { [`${what}_id`]: id });
  }
}

export class UnauthorizedError extends ServerError {
  constructor() {
    super("UNAUTHORIZED", "Missing or unknown API key. Send it in the x-api-key header.");
  }
}

export class InvalidRequestError extends ServerError {
  constructor(field: string, message: string, issues: unknown[] = []) {
    super("INVALID_REQUEST", `${field || "body"}: ${message}`, { field, issues });
  }
}

/**
 * multitask_strategy "reject" (the default) on a thread that has a run in progress. Not
 * `THREAD_BUSY`, which is the checkpoint storage's claim held by another caller.
 */
export class ThreadRunningError extends ServerError {
  constructor(threadId: string) {
    super(
      "THREAD_RUNNING",
      `Thread "${threadId}" is already running a task. Wait for it to finish or choose a different multitask strategy (enqueue, interrupt, rollback).`,
      { thread_id: threadId },
    );
  }
}

export class ConflictError extends ServerError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super("CONFLICT", message, details);
  }
}

/** Somebody answered this interrupt first; nothing of this answer was applied. */
export class AlreadyAnsweredError extends ServerError {
  constructor(answer: { thread_id: string; interrupt_id: string; by: string; answer: unknown; at: string }) {
    super(
      "ALREADY_ANSWERED",
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

/**
 * The process is shutting down (runs/drain.ts): the run stopped at a step boundary, that step
 * saved, and went back to the queue (`queued`), where another process goes on; or it ended
 * `interrupted`: its client asked so (`on_disconnect: "cancel"`), or it did not reach a
 * boundary within the drain window and was aborted.
 */
export class ServerStoppingError extends ServerError {
  constructor(runId: string, queued: boolean) {
    super(
      "SERVER_STOPPING",
      queued
        ? "This server is shutting down: the run stopped at a step boundary, that step saved, and went back to the queue, where another process continues it: join it through another server."
        : "This server is shutting down and stopped the run: it ended interrupted (its client asked so with on_disconnect, or it reached no step boundary in time). Continue the thread with a run without input, through another server.",
      { run_id: runId },
    );
  }
}

/** A read the server makes of its own accord (the health check, the metrics' backlog) failed or timed out. */
export class DatabaseUnansweredError extends ServerError {
  constructor(what: string, cause: unknown) {
    super(
      "STORAGE_FAILED",
      `The database did not answer ${what}: ${cause instanceof Error ? cause.message : String(cause)}.`,
    );
  }
}
