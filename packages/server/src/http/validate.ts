import type { z } from "zod";
import { InvalidRequestError, ServerError } from "../errors.js";
import type { Ctx } from "./env.js";

function fail(issues: z.core.$ZodIssue[]): never {
  const first = issues[0]!;
  throw new InvalidRequestError(
    first.path.join("."),
    first.message,
    issues.map((i) => ({ path: i.path, message: i.message })),
  );
}

/**
 * Deepest nesting of arrays and objects a body may have. Deeper values cannot be stored
 * (serialising them overflows the stack) and no graph state needs them.
 */
const MAX_JSON_DEPTH = 512;

/** The deepest nesting of `[` and `{` in JSON text (outside strings), up to `limit` + 1. */
export function jsonDepth(text: string, limit = MAX_JSON_DEPTH): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 92 /* \ */) i++;
      else if (ch === 34 /* " */) inString = false;
    } else if (ch === 34) inString = true;
    else if (ch === 91 /* [ */ || ch === 123 /* { */) {
      if (++depth > deepest && (deepest = depth) > limit) return deepest;
    } else if (ch === 93 /* ] */ || ch === 125 /* } */) depth--;
  }
  return deepest;
}

/** The JSON body, validated; an empty body counts as `{}`. */
export async function body<S extends z.ZodType>(c: Ctx, schema: S): Promise<z.infer<S>> {
  const text = await c.req.text();
  let raw: unknown = {};
  if (jsonDepth(text) > MAX_JSON_DEPTH)
    throw new ServerError(
      "JSON_TOO_DEEP",
      `The request body nests arrays and objects more than ${MAX_JSON_DEPTH} deep; flatten it.`,
    );
  if (text.trim()) {
    try {
      raw = JSON.parse(text);
    } catch {
      throw new ServerError("INVALID_JSON", "The request body is not valid JSON.");
    }
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) fail(parsed.error.issues);
  return parsed.data;
}

/** The named fields of a request body, without the nulls the API accepts for "not given" (filters of a search). */
export function given<T extends object, K extends keyof T>(
  req: T,
  keys: readonly K[],
): { [P in K]?: NonNullable<T[P]> } {
  const out: { [P in K]?: NonNullable<T[P]> } = {};
  for (const key of keys) {
    const value = req[key];
    if (value !== null && value !== undefined) out[key] = value;
  }
  return out;
}

export function query<S extends z.ZodType>(c: Ctx, schema: S): z.infer<S> {
  const parsed = schema.safeParse(c.req.query());
  if (!parsed.success) fail(parsed.error.issues);
  return parsed.data;
}

/** A repeatable query parameter (`name=a&name=b`, none: `[]`), validated; a wrong value is a 422 naming `name`. */
export function queryList<S extends z.ZodType>(c: Ctx, name: string, schema: S): z.infer<S> {
  const parsed = schema.safeParse(c.req.queries(name) ?? []);
  if (!parsed.success) fail(parsed.error.issues.map((issue) => ({ ...issue, path: [name] })));
  return parsed.data;
}
