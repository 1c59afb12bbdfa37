/**
 * A statement with its `?` parameters written in as PostgreSQL literals, so that several
 * statements can go out in one simple query (one round trip) instead of one round trip each:
 * node-postgres neither pipelines nor sends parameters with more than one statement.
 * Only the values the store writes are accepted (text, numbers, booleans, null).
 */
/** A value the store cannot write as a literal (it must go as a parameter). */
export class UnsupportedLiteralError extends Error {
  readonly code = "UNSUPPORTED_LITERAL";
  constructor(value: unknown) {
    super(
      `A ${typeof value} cannot be written into a batched statement (sql-literals.ts); pass it as a parameter of a statement of its own.`,
    );
  }
}

export function literal(value: unknown): string {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "string") return quoted(value);
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value === "boolean") return value ? "TRUE" : "FALSE";
  throw new UnsupportedLiteralError(value);
}

/**
 * A string literal: quotes doubled, and with a backslash anywhere an E'...' literal with
 * backslashes doubled, read the same whatever `standard_conforming_strings` is. The text
 * node-postgres's escapeLiteral gives (less its leading space before E), built by two native
 * replaces instead of a loop over characters: a state's JSON, written into every batched
 * statement that saves it, costs a fifth as much.
 */
function quoted(text: string): string {
  const body = text.replace(/'/g, "''");
  return text.includes("\\") ? `E'${body.replace(/\\/g, "\\\\")}'` : `'${body}'`;
}

/** `sql` with each `?` replaced by the next parameter's literal. */
export function inlined(sql: string, params: readonly unknown[]): string {
  let n = 0;
  return sql.replace(/\?/g, () => literal(params[n++]));
}
