import { InterludeError, preview } from "./base.js";
import type { ErrorCode } from "./codes.js";

/**
 * The graph definition is wrong (raised by `compile()` or the builder), or a call that builds,
 * steers or reads a graph was given an option it does not take (`errors/options.ts`).
 */
export class GraphValidationError extends InterludeError {
  /** The node, edge or breakpoint name at fault, when there is one. */
  readonly node?: string;
  constructor(message: string, node?: string) {
    super("GRAPH_VALIDATION", message, { details: node === undefined ? {} : { node } });
    this.node = node;
  }
}

/**
 * A node no edge, branch or declared `ends` leads to (LangGraph refuses it at compile too): it
 * could never run, which is almost always a missing edge or a `Command({ goto })` target not
 * declared in `ends`.
 */
export class UnreachableNodeError extends GraphValidationError {
  static get unminifiable_name(): string {
    return "UnreachableNodeError";
  }
  override lc_error_code = "UNREACHABLE_NODE";
}

/** LangGraph.js's troubleshooting codes (`lc_error_code`) of the updates it refuses. */
export type InvalidUpdateKind = "INVALID_CONCURRENT_GRAPH_UPDATE" | "INVALID_GRAPH_NODE_RETURN_VALUE";

/** A node returned a value that cannot be applied to the state. */
export class InvalidUpdateError extends InterludeError {
  static get unminifiable_name(): string {
    return "InvalidUpdateError";
  }
  constructor(message: string, kind?: InvalidUpdateKind) {
    super("INVALID_UPDATE", message);
    if (kind) this.lc_error_code = kind;
  }
}

/**
 * A run option given a value the run cannot use (`streamMode: "update"`, `durability: "synch"`,
 * `recursionLimit: "10"`). Nothing was run.
 */
export class InvalidRunOptionError extends InterludeError {
  readonly option: string;
  /** @param expected what it must be: a phrase, or the values it may take */
  constructor(option: string, value: unknown, expected: string | readonly string[]) {
    const must =
      typeof expected === "string" ? expected : `one of ${expected.map((e) => JSON.stringify(e)).join(", ")}`;
    super("INVALID_RUN_OPTION", `The run option ${option} is ${preview(value)}; it must be ${must}. Nothing was run.`, {
      details: { option },
    });
    this.option = option;
  }
}

export class GraphRecursionError extends InterludeError {
  static get unminifiable_name(): string {
    return "GraphRecursionError";
  }
  constructor(limit: number) {
    super(
      "GRAPH_RECURSION_LIMIT",
      `Recursion limit of ${limit} reached without hitting a stop condition. ` +
        `Check the graph for a loop that never ends, or raise it: invoke(input, { recursionLimit: ${limit * 2} }).`,
    );
    this.lc_error_code = "GRAPH_RECURSION_LIMIT";
  }
}

/** LangGraph's class for a graph used with what it cannot work with; Interlude raises its subclasses. */
export class GraphValueError extends InterludeError {
  static get unminifiable_name(): string {
    return "GraphValueError";
  }
  constructor(message: string, code: ErrorCode = "GRAPH_VALUE") {
    super(code, message);
  }
}

/** A `GraphValueError`, as LangGraph raises it for the same mistake. */
export class MissingCheckpointerError extends GraphValueError {
  constructor(what: string) {
    super(
      `${what} needs a checkpointer to save the paused state. ` +
        `Pass one to compile: builder.compile({ checkpointer: new MemorySaver() }) (or a SqliteSaver for durable threads).`,
      "MISSING_CHECKPOINTER",
    );
    this.lc_error_code = "MISSING_CHECKPOINTER";
  }
}

/**
 * `compile({ checkpointer })` was given a saver Interlude cannot run on: LangGraph.js's own (it
 * has no thread claims), or one whose `getNextVersion` Interlude would never call.
 */
export class InvalidCheckpointerError extends GraphValueError {
  constructor(message: string) {
    super(message, "INVALID_CHECKPOINTER");
  }
}

export class MissingThreadIdError extends InterludeError {
  /** @param config the config given, to point at a thread id given under another name or place */
  constructor(config?: { configurable?: Record<string, unknown> }) {
    super(
      "MISSING_THREAD_ID",
      `This graph has a checkpointer, so every run, and every read or edit of its state, needs a thread: ` +
        `pass { configurable: { thread_id: "some-id" } } as the config (invoke(input, config), ` +
        `getState(config), updateState(config, values)).${misplacedThreadId(config)}`,
    );
  }
}

/** Where the config has a thread id that is not `configurable.thread_id` (`threadId`, or at its top level), said so. */
function misplacedThreadId(config: { configurable?: Record<string, unknown> } | undefined): string {
  if (config === undefined || config === null) return "";
  const spelt = (keys: object) =>
    Object.keys(keys).find((key) => key.replace(/[-_]/g, "").toLowerCase() === "threadid");
  const top = spelt(config);
  if (top !== undefined) return ` The config has "${top}" at its top level: it goes in configurable, as thread_id.`;
  const inner = spelt(config.configurable ?? {});
  return inner === undefined ? "" : ` The config's configurable has "${inner}": the key is thread_id.`;
}

/** Input that a graph cannot start from (for example `null` on a thread that never ran). */
export class EmptyInputError extends InterludeError {
  static get unminifiable_name(): string {
    return "EmptyInputError";
  }
  constructor(message: string) {
    super("EMPTY_INPUT", message);
  }
}

/** A checkpoint id in the config does not exist on the thread. */
export class CheckpointNotFoundError extends InterludeError {
  constructor(threadId: string, checkpointId: string) {
    super(
      "CHECKPOINT_NOT_FOUND",
      `Thread "${threadId}" has no checkpoint "${checkpointId}". List its checkpoints with getStateHistory().`,
    );
  }
}

/** The run was cancelled through its AbortSignal; the thread keeps its last saved checkpoint. */
export class RunCancelledError extends InterludeError {
  /** What the run's signal was aborted with (its `reason`), if anything. */
  readonly reason?: unknown;
  constructor(reason?: unknown) {
    super(
      "RUN_CANCELLED",
      `The run was cancelled${reason instanceof Error ? `: ${reason.message}` : typeof reason === "string" ? `: ${reason}` : ""}. ` +
        `The thread is unchanged since its last saved checkpoint; continue it with invoke(null, config).`,
    );
    this.reason = reason;
  }
}

/** `interrupt()` (or anything that needs the running task) was called outside a node. */
export class InterruptOutsideNodeError extends InterludeError {
  constructor() {
    super(
      "INTERRUPT_OUTSIDE_NODE",
      "interrupt() was called outside a running graph node. Call it inside a node function.",
    );
  }
}

/** `streamEvents` was asked for an event format other than v2. */
export class UnsupportedEventsVersionError extends InterludeError {
  constructor(version: unknown) {
    super(
      "UNSUPPORTED_EVENTS_VERSION",
      `streamEvents() supports { version: "v2" } only (got ${JSON.stringify(version)}); v1 is deprecated in LangChain. Pass { version: "v2" }.`,
    );
  }
}

/**
 * Refuses a generator function as an entrypoint's or a task's body (as LangGraph.js does): its
 * steps would not be recorded, so a resumed run could not replay them.
 */
export function refuseGenerator(fn: unknown, what: "an entrypoint" | "a task", name?: string): void {
  const kind = (fn as { constructor?: { name?: string } } | null)?.constructor?.name;
  if (kind === "GeneratorFunction" || kind === "AsyncGeneratorFunction")
    throw new GraphValidationError(
      `A generator function cannot be ${what}: return the result, and send partial results with config.writer (the "custom" stream mode).`,
      name,
    );
}
