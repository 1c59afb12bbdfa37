/**
 * Every error Interlude raises on purpose is an `InterludeError` with a stable `code`:
 * match on `code` (or `instanceof`), never on the message, which may be reworded.
 */
export class InterludeError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
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
