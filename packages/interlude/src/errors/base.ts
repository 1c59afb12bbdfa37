import { type ErrorCode, statusOfCode } from "./codes.js";

export interface InterludeErrorOptions {
  cause?: unknown;
  /** The structured facts a caller can act on, in snake case as they appear in HTTP bodies. */
  details?: Readonly<Record<string, unknown>>;
  /** HTTP status when it differs from the code's usual one (see `ERROR_STATUS`). */
  status?: number;
}

/** LangGraph.js's error fields: its troubleshooting code. */
export interface BaseLangGraphErrorFields {
  lc_error_code?: string;
  cause?: unknown;
}

/**
 * LangGraph.js's base error class. Every Interlude error, and what a node throws to stop
 * (`GraphBubbleUp`), is one, so that code testing `instanceof BaseLangGraphError` works unchanged.
 * Each class LangGraph.js exports too has its static `unminifiable_name`: LangGraph.js's idiom
 * compares `error.name` with it (`e.name === EmptyChannelError.unminifiable_name`), which
 * survives a minifier renaming the class.
 */
export class BaseLangGraphError extends Error {
  lc_error_code?: string;
  constructor(message = "", fields?: BaseLangGraphErrorFields) {
    const code = fields?.lc_error_code;
    // As LangGraph.js words it, for code that shows these messages.
    super(
      code
        ? `${message}\n\nTroubleshooting URL: https://docs.langchain.com/oss/javascript/langgraph/${code}/\n`
        : message,
      fields && "cause" in fields ? { cause: fields.cause } : undefined,
    );
    if (code) this.lc_error_code = code;
  }
}

/**
 * Every error Interlude raises on purpose is an `InterludeError` with a stable `code`:
 * match on `code` (or `instanceof`), never on the message, which may be reworded.
 */
export class InterludeError extends BaseLangGraphError {
  readonly code: ErrorCode;
  /** The structured facts of this error (snake case), as the server puts them in its bodies. */
  readonly details: Readonly<Record<string, unknown>>;
  /** The HTTP status this error means; undefined for a failure that is not the caller's (a 500). */
  readonly status: number | undefined;
  constructor(code: ErrorCode, message: string, options: InterludeErrorOptions = {}) {
    super(message, "cause" in options ? { cause: options.cause } : undefined);
    this.code = code;
    this.name = new.target.name;
    this.details = options.details ?? {};
    this.status = options.status ?? statusOfCode(code);
  }
  /** Plain form for logs and HTTP bodies; never includes the stack. */
  toJSON(): Record<string, unknown> {
    return { name: this.name, code: this.code, message: this.message };
  }
}

/** Short, single-line JSON for error messages; long payloads are cut. */
export function preview(value: unknown, max = 200): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
