import { InterludeError, preview } from "./base.js";

export interface PendingInterruptInfo {
  id: string;
  value: unknown;
}

function listPending(pending: readonly PendingInterruptInfo[]): string {
  return pending.map((p) => `  ${p.id}: ${preview(p.value, 120)}`).join("\n");
}

/** A plain `Command({ resume })` while several interrupts wait: whose answer is it? */
export class AmbiguousResumeError extends InterludeError {
  readonly pending: readonly PendingInterruptInfo[];
  constructor(pending: readonly PendingInterruptInfo[]) {
    super(
      "AMBIGUOUS_RESUME",
      `${pending.length} interrupts are pending, so a single resume value could answer any of them. ` +
        `Answer by id instead: new Command({ resume: { "<interrupt id>": answer, ... } }). Pending:\n${listPending(pending)}`,
      { details: { pending } },
    );
    this.pending = pending;
  }
}

/**
 * Why no answer is taken: the thread never ran, it finished, or (`breakpoint`) it has steps to
 * run and none of them asks a question: it stopped at a static breakpoint, or its last run
 * stopped before them (a failure, a cancellation, the recursion limit, a process that ended).
 */
export type NothingToResumeReason = "unknown_thread" | "finished" | "breakpoint";

export class NothingToResumeError extends InterludeError {
  readonly reason: NothingToResumeReason;
  constructor(threadId: string, reason: NothingToResumeReason) {
    const why = {
      unknown_thread: `thread "${threadId}" has never run. Start it with invoke(input, config) first.`,
      finished: `thread "${threadId}" has finished and waits for no answer. Start a new run with invoke(input, config).`,
      breakpoint: `thread "${threadId}" has steps to run, but no interrupt() waits for an answer: it stopped at a static breakpoint (interruptBefore/After), or its last run stopped before those steps (an error, a cancellation, the recursion limit, or a process that ended). Continue it with invoke(null, config).`,
    }[reason];
    super("NOTHING_TO_RESUME", `Nothing to resume: ${why}`, { details: { reason } });
    this.reason = reason;
  }
}

export class UnknownInterruptError extends InterludeError {
  static get unminifiable_name(): string {
    return "UnknownInterruptError";
  }
  readonly unknownIds: readonly string[];
  readonly pending: readonly PendingInterruptInfo[];
  constructor(unknownIds: readonly string[], pending: readonly PendingInterruptInfo[]) {
    super(
      "UNKNOWN_INTERRUPT",
      `No pending interrupt has id ${unknownIds.map((id) => `"${id}"`).join(", ")}. ` +
        (pending.length ? `Pending:\n${listPending(pending)}` : "Nothing is pending on this thread."),
      { details: { unknown_ids: unknownIds, pending } },
    );
    this.unknownIds = unknownIds;
    this.pending = pending;
  }
  /** LangGraph's names for the same facts. */
  get reason(): "not_pending" {
    return "not_pending";
  }
  get interruptIds(): readonly string[] {
    return this.unknownIds;
  }
  get pendingIds(): readonly string[] {
    return this.pending.map((p) => p.id);
  }
}

export function isUnknownInterruptError(error: unknown): error is UnknownInterruptError {
  return error instanceof UnknownInterruptError;
}

/**
 * On replay, the interrupt at an answered position now asks something else than what the
 * answer was given for. Handing the old answer over would apply it to a question nobody saw.
 */
export class InterruptMismatchError extends InterludeError {
  readonly node: string;
  readonly answered: unknown;
  readonly asked: unknown;
  constructor(node: string, index: number, answered: unknown, asked: unknown) {
    super(
      "INTERRUPT_MISMATCH",
      `Node "${node}" asked a different question at interrupt #${index} than the one that was answered.\n` +
        `  answered: ${preview(answered)}\n  now asked: ${preview(asked)}\n` +
        `The answer was not used and the thread is still paused. Usually the state changed between pause and resume ` +
        `(for example Command({ update })). Resume without the update, give interrupts a stable key with ` +
        `interrupt(value, { key }), or opt into LangGraph's positional matching with compile({ resumeMatching: "positional" }).`,
      { details: { node } },
    );
    this.node = node;
    this.answered = answered;
    this.asked = asked;
  }
}

export interface ResumeIssue {
  message: string;
  path?: ReadonlyArray<PropertyKey | { key: PropertyKey }>;
}

/** LangGraph.js's mark of an error caused by an answer that failed its schema (shared, so either library's test sees the other's). */
const INVALID_RESUME = Symbol.for("langgraph.invalid_resume");

/** Marks `error` as caused by an answer that failed its `responseSchema` (LangGraph.js's agent middleware does this to errors it wraps). */
export function _markInvalidResume(error: unknown): void {
  if (typeof error === "object" && error !== null) Object.defineProperty(error, INVALID_RESUME, { value: true });
}

/** Whether `error`, or an error in its `cause` chain, is an answer that failed its schema: the question can be answered again. */
export function isInvalidResume(error: unknown): boolean {
  let current = error;
  for (let depth = 0; depth < 10 && typeof current === "object" && current !== null; depth++) {
    if ((current as Record<symbol, unknown>)[INVALID_RESUME] === true) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** An answer failed the interrupt's `responseSchema`. The interrupt stays pending, same id. */
export class InvalidResumeError extends InterludeError {
  readonly interruptId: string;
  readonly issues: readonly ResumeIssue[];
  constructor(interruptId: string, issues: readonly ResumeIssue[]) {
    super(
      "INVALID_RESUME",
      `The answer to interrupt "${interruptId}" is not valid: ` +
        issues
          .map(
            (i) =>
              (i.path?.length
                ? `${i.path.map((p) => (typeof p === "object" ? String(p.key) : String(p))).join(".")}: `
                : "") + i.message,
          )
          .join("; ") +
        `. The interrupt is still pending; send a corrected answer.`,
      { details: { interrupt_id: interruptId, issues } },
    );
    this.interruptId = interruptId;
    this.issues = issues;
    _markInvalidResume(this);
  }
}

/** A `responseSchema` whose validation is asynchronous: answers are checked while the node runs, synchronously. */
export class AsyncSchemaError extends InterludeError {
  constructor() {
    super(
      "ASYNC_SCHEMA",
      "interrupt() responseSchema must validate synchronously. Use a validator without async refinements.",
    );
  }
}
