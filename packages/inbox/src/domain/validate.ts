/**
 * Checks a value against a JSON Schema in the browser, before it is sent, with the issues in
 * the server's shape (`{ message, path }`) so the form shows both the same way.
 */
import { type OutputUnit, type Schema, type SchemaDraft, Validator } from "@cfworker/json-schema";
import type { AnswerIssue, JsonSchema } from "../api/types";

function draftOf(schema: JsonSchema): SchemaDraft {
  const uri = typeof schema.$schema === "string" ? schema.$schema : "";
  if (/draft-0?4/.test(uri)) return "4";
  if (/draft-0?7/.test(uri)) return "7";
  if (uri.includes("2019-09")) return "2019-09";
  return "2020-12";
}

const pathOf = (location: string) =>
  location
    .replace(/^#\/?/, "")
    .split("/")
    .filter(Boolean)
    .map((p) => decodeURIComponent(p).replace(/~1/g, "/").replace(/~0/g, "~"));

const REQUIRED = /required property "(.+)"/;

/** One issue per failing leaf: the validator also reports every parent a failure passes through. */
function toIssue(unit: OutputUnit, all: readonly OutputUnit[]): AnswerIssue[] {
  if (unit.keyword === "false") return [];
  if (unit.keyword === "required") {
    const name = REQUIRED.exec(unit.error)?.[1];
    return [{ message: "Required.", path: [...pathOf(unit.instanceLocation), ...(name ? [name] : [])] }];
  }
  const deeper = all.some((u) => u.keyword !== "false" && u.instanceLocation.startsWith(`${unit.instanceLocation}/`));
  if (deeper) return [];
  // Schemas made from zod state a format and its regex; the format's name reads better.
  const format = all.some((u) => u.keyword === "format" && u.instanceLocation === unit.instanceLocation);
  if (unit.keyword === "pattern" && format) return [];
  return [{ message: unit.error, path: pathOf(unit.instanceLocation) }];
}

export function validateValue(schema: JsonSchema, value: unknown): AnswerIssue[] {
  const result = new Validator(schema as Schema, draftOf(schema), false).validate(value);
  return result.valid ? [] : result.errors.flatMap((u) => toIssue(u, result.errors));
}
