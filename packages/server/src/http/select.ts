/**
 * `select`: the fields a response is cut to, as the SDK names them (threads.search,
 * assistants.search, runs.list, getState, getHistory). A state's `values.<key>` keeps that one
 * key of its values. A field the resource does not have is refused (422), not ignored.
 */
import { InvalidRequestError } from "../errors.js";
import type { Ctx } from "./env.js";

export const THREAD_FIELDS = [
  "thread_id",
  "created_at",
  "updated_at",
  "state_updated_at",
  "metadata",
  "config",
  "context",
  "status",
  "values",
  "interrupts",
] as const;
export const ASSISTANT_FIELDS = [
  "assistant_id",
  "graph_id",
  "name",
  "description",
  "config",
  "context",
  "created_at",
  "updated_at",
  "metadata",
  "version",
] as const;
export const CRON_FIELDS = [
  "cron_id",
  "assistant_id",
  "thread_id",
  "on_run_completed",
  "end_time",
  "schedule",
  "timezone",
  "created_at",
  "updated_at",
  "payload",
  "user_id",
  "next_run_date",
  "metadata",
  "enabled",
  // Not a field of the cron: the time the search answered, given when selected (the SDK's CronSelectField has it).
  "now",
] as const;
export const RUN_FIELDS = [
  "run_id",
  "thread_id",
  "assistant_id",
  "created_at",
  "updated_at",
  "status",
  "metadata",
  "kwargs",
  "multitask_strategy",
  "cancel_reason",
] as const;
export const STATE_FIELDS = [
  "values",
  "next",
  "tasks",
  "checkpoint",
  "metadata",
  "created_at",
  "parent_checkpoint",
  "interrupts",
] as const;

const VALUES_KEY = "values.";

/** `select` checked against `fields` (and `values.<key>` where `values` is one); undefined when not given. */
export function selection(
  select: readonly string[] | null | undefined,
  fields: readonly string[],
  valuesKeys = false,
): readonly string[] | undefined {
  if (select === null || select === undefined || !select.length) return undefined;
  for (const field of select) {
    if (fields.includes(field) || (valuesKeys && field.startsWith(VALUES_KEY) && field.length > VALUES_KEY.length))
      continue;
    throw new InvalidRequestError(
      "select",
      `"${field}" is not a field here; select among ${fields.join(", ")}${valuesKeys ? ", or values.<key>" : ""}.`,
      [{ path: ["select"], message: `unknown field "${field}"` }],
    );
  }
  return select;
}

/** A query string's repeated `select` (select=a&select=b), checked as `selection` does. */
export function selectionOf(c: Ctx, fields: readonly string[], valuesKeys = false): readonly string[] | undefined {
  return selection(c.req.queries("select"), fields, valuesKeys);
}

/** Whether a selection (undefined: every field) shows any of a state's values. */
export function selectsValues(select: readonly string[] | undefined): boolean {
  return !select || select.some((field) => field === "values" || field.startsWith(VALUES_KEY));
}

/** `record` cut to `select` (all of it when undefined). */
export function cut(record: Record<string, unknown>, select: readonly string[] | undefined): Record<string, unknown> {
  if (!select) return record;
  const out: Record<string, unknown> = {};
  for (const field of select) {
    if (!field.startsWith(VALUES_KEY)) {
      if (field in record) out[field] = record[field];
      continue;
    }
    // The whole of values, selected too, is there already.
    if (select.includes("values")) continue;
    const values = record.values as Record<string, unknown> | null | undefined;
    const key = field.slice(VALUES_KEY.length);
    const picked = (out.values ??= {}) as Record<string, unknown>;
    if (values && key in values) picked[key] = values[key];
  }
  return out;
}
