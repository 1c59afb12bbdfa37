/**
 * A form from the JSON Schema an interrupt declares for its answer: schema -> fields, field
 * inputs -> the answer, and the server's validation issues -> the fields they belong to.
 */
import type { AnswerIssue, JsonSchema } from "../api/types";

type FieldKind = "text" | "multiline" | "number" | "integer" | "boolean" | "select" | "json";

export interface Field {
  /** Dotted path from the answer's root ("" for a non-object answer). */
  key: string;
  path: string[];
  label: string;
  kind: FieldKind;
  required: boolean;
  description?: string;
  options?: unknown[];
}

/** What the inputs hold: text for most kinds, a flag for checkboxes. */
export type FormValues = Record<string, string | boolean>;

const typeOf = (s: JsonSchema): string | undefined =>
  Array.isArray(s.type) ? s.type.find((t) => t !== "null") : s.type;

function kindOf(s: JsonSchema): FieldKind {
  if (Array.isArray(s.enum)) return "select";
  switch (typeOf(s)) {
    case "string":
      return s.format === "textarea" || (typeof s.maxLength === "number" && s.maxLength > 200) ? "multiline" : "text";
    case "number":
      return "number";
    case "integer":
      return "integer";
    case "boolean":
      return "boolean";
    default:
      return "json";
  }
}

const humanize = (key: string) => key.replace(/[_-]+/g, " ").replace(/^\w/, (c) => c.toUpperCase());

export function fieldsOf(schema: JsonSchema, path: string[] = [], required = true): Field[] {
  if (typeOf(schema) === "object" && schema.properties) {
    const req = new Set(schema.required ?? []);
    return Object.entries(schema.properties).flatMap(([name, sub]) => fieldsOf(sub, [...path, name], req.has(name)));
  }
  const name = path[path.length - 1];
  const field: Field = {
    key: path.join("."),
    path,
    label: schema.title ?? (name ? humanize(name) : "Answer"),
    kind: kindOf(schema),
    required,
  };
  if (schema.description) field.description = schema.description;
  if (Array.isArray(schema.enum)) field.options = schema.enum;
  return [field];
}

function schemaAt(schema: JsonSchema, path: string[]): JsonSchema {
  return path.reduce<JsonSchema>((s, p) => s.properties?.[p] ?? {}, schema);
}

export function initialValues(schema: JsonSchema, fields: Field[]): FormValues {
  const values: FormValues = {};
  for (const f of fields) {
    const d = schemaAt(schema, f.path).default;
    if (f.kind === "boolean") values[f.key] = d === true;
    else if (f.kind === "select") values[f.key] = d === undefined ? "" : String(f.options?.indexOf(d) ?? "");
    else if (f.kind === "json") values[f.key] = d === undefined ? "" : JSON.stringify(d, null, 2);
    else values[f.key] = d === undefined ? "" : String(d);
  }
  return values;
}

type Parsed = { ok: true; value: unknown; present: boolean } | { ok: false; message: string };

function parseField(f: Field, raw: string | boolean | undefined): Parsed {
  if (f.kind === "boolean") return { ok: true, value: raw === true, present: true };
  const text = typeof raw === "string" ? raw : "";
  if (text.trim() === "" && f.kind !== "text" && f.kind !== "multiline")
    return { ok: true, value: undefined, present: false };
  switch (f.kind) {
    case "number":
    case "integer": {
      const n = Number(text);
      return Number.isFinite(n) ? { ok: true, value: n, present: true } : { ok: false, message: "Enter a number." };
    }
    case "select":
      return { ok: true, value: f.options?.[Number(text)], present: true };
    case "json":
      try {
        return { ok: true, value: JSON.parse(text), present: true };
      } catch {
        return { ok: false, message: "Enter valid JSON." };
      }
    default:
      return { ok: true, value: text, present: text !== "" || f.required };
  }
}

function setAt(target: Record<string, unknown>, path: string[], value: unknown): void {
  let node = target;
  path.slice(0, -1).forEach((p) => {
    node = (node[p] ??= {}) as Record<string, unknown>;
  });
  node[path[path.length - 1]!] = value;
}

/**
 * The answer the inputs describe. Only input syntax is checked here (a number field holds a
 * number, a JSON field holds JSON); the schema's rules are the server's to enforce.
 */
export function answerFrom(
  fields: Field[],
  values: FormValues,
): { answer: unknown } | { errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  if (fields.length === 1 && fields[0]!.path.length === 0) {
    const p = parseField(fields[0]!, values[""]);
    return p.ok ? { answer: p.value } : { errors: { "": p.message } };
  }
  const answer: Record<string, unknown> = {};
  for (const f of fields) {
    const p = parseField(f, values[f.key]);
    if (!p.ok) errors[f.key] = p.message;
    else if (p.present) setAt(answer, f.path, p.value);
  }
  return Object.keys(errors).length ? { errors } : { answer };
}

const segment = (p: PropertyKey | { key: PropertyKey }) => String(typeof p === "object" && p !== null ? p.key : p);

/** Sorts issues onto the fields they name; issues naming no field are returned apart. */
export function issuesByField(
  issues: readonly AnswerIssue[],
  fields: Field[],
): { byField: Record<string, string[]>; other: string[] } {
  const byField: Record<string, string[]> = {};
  const other: string[] = [];
  for (const issue of issues) {
    const path = (issue.path ?? []).map(segment);
    // The deepest field the issue's path reaches ("items.0.name" belongs to "items").
    const field = fields
      .filter((f) => f.path.length <= path.length && f.path.every((p, i) => p === path[i]))
      .sort((a, b) => b.path.length - a.path.length)[0];
    if (field && (field.path.length > 0 || fields.length === 1)) (byField[field.key] ??= []).push(issue.message);
    else other.push(path.length ? `${path.join(".")}: ${issue.message}` : issue.message);
  }
  return { byField, other };
}

/** A schema describing an existing value, with it as the defaults: the edit form for `args`. */
export function schemaFromValue(value: unknown): JsonSchema {
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, schemaFromValue(v)]));
    return { type: "object", properties, required: Object.keys(properties) };
  }
  const type =
    typeof value === "string"
      ? "string"
      : typeof value === "number"
        ? "number"
        : typeof value === "boolean"
          ? "boolean"
          : undefined;
  const schema: JsonSchema = { default: value };
  if (type) schema.type = type;
  if (type === "string" && (value as string).length > 60) schema.format = "textarea";
  return schema;
}

/** `schema` with `value`'s parts as its defaults, so a form built from it opens on `value`. */
export function withValues(schema: JsonSchema, value: unknown): JsonSchema {
  if (value === undefined || value === null) return schema;
  if (schema.properties && typeof value === "object" && !Array.isArray(value)) {
    const v = value as Record<string, unknown>;
    const properties = Object.fromEntries(Object.entries(schema.properties).map(([k, s]) => [k, withValues(s, v[k])]));
    return { ...schema, properties };
  }
  return { ...schema, default: value };
}
