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

/** The JSON body, validated; an empty body counts as `{}`. */
export async function body<S extends z.ZodType>(c: Ctx, schema: S): Promise<z.infer<S>> {
  const text = await c.req.text();
  let raw: unknown = {};
  if (text.trim()) {
    try {
      raw = JSON.parse(text);
    } catch {
      throw new ServerError("INVALID_JSON", 400, "The request body is not valid JSON.");
    }
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) fail(parsed.error.issues);
  return parsed.data;
}

export function query<S extends z.ZodType>(c: Ctx, schema: S): z.infer<S> {
  const parsed = schema.safeParse(c.req.query());
  if (!parsed.success) fail(parsed.error.issues);
  return parsed.data;
}
