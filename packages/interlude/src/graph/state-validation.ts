/**
 * Checking values against the state's schemas (zod fields, StateSchema fields): the run's input
 * before any node runs, and each node's update before it is applied, as LangGraph.js does. A
 * failure is a `StateInputError` naming the field. Graphs without schemas are not wrapped.
 */
import { InvalidContextError, StateInputError } from "../errors/state.js";
import { isStandardSchema, type StandardIssue, type StandardSchemaV1 } from "../interrupt/standard-schema.js";
import { type Command, isCommand } from "../primitives/command.js";
import { NOT_OVERWRITE, Overwrite, overwritten } from "../primitives/overwrite.js";
import type { GraphDeclaration } from "./declaration.js";

type Validators = ReadonlyMap<string, StandardSchemaV1>;
type NodeRun = (input: any, config: any) => unknown;

/** Where a reduced field's validator keeps the schema of its value (what an `Overwrite` carries). */
const VALUE_SCHEMA = Symbol("interlude.valueSchema");

/**
 * The validator of a field with a reducer (`ReducedValue`, `DeltaValue`): a write is checked as
 * an update (`inputSchema`), an `Overwrite` by the value it carries (`valueSchema`).
 */
export function reducedFieldValidator(field: { inputSchema: unknown; valueSchema: unknown }): StandardSchemaV1 {
  const { inputSchema, valueSchema } = field as { inputSchema: StandardSchemaV1; valueSchema: StandardSchemaV1 };
  // The input schema itself underneath (its JSON Schema, zod's own fields), with the value's beside it.
  return Object.assign(Object.create(inputSchema), { [VALUE_SCHEMA]: valueSchema });
}

/** The input task's function: only the input keys (with an input schema), each validated. */
export function inputMapper(builder: GraphDeclaration): (input: unknown) => unknown {
  const keys = builder.inputKeys ? new Set(builder.inputKeys) : undefined;
  const validators = builder.validators;
  if (!keys && validators.size === 0) return (input) => input;
  return async (input) => {
    if (!isRecord(input)) return input;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(input)) {
      if (keys && !keys.has(key)) continue;
      out[key] = await validated(validators, key, value);
    }
    return out;
  };
}

/** A node whose returned update (or Command update) is validated field by field; a list of updates passes as it is. */
export function validatingNode(name: string, run: NodeRun, validators: Validators): NodeRun {
  if (validators.size === 0) return run;
  return async (input, config) => {
    const output = await run(input, config);
    // A Command's update is checked too (its values kept as given: it is applied as it is).
    if (isCommand(output)) {
      for (const [key, value] of (output as Command).updateEntries()) await validated(validators, key, value, name);
      return output;
    }
    if (!isRecord(output)) return output;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(output)) out[key] = await validated(validators, key, value, name);
    return out;
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `value` checked by `key`'s validator, if any. */
export async function validated(validators: Validators, key: string, value: unknown, node?: string): Promise<unknown> {
  const schema = validators.get(key);
  if (!schema) return value;
  // An overwrite is checked by what it carries (a whole value), and stays an overwrite.
  const replacement = overwritten(value);
  if (replacement !== NOT_OVERWRITE) {
    const valueSchema = (schema as { [VALUE_SCHEMA]?: StandardSchemaV1 })[VALUE_SCHEMA] ?? schema;
    return new Overwrite(await check(valueSchema, key, replacement, node));
  }
  return check(schema, key, value, node);
}

async function check(schema: StandardSchemaV1, key: string, value: unknown, node?: string): Promise<unknown> {
  const result = await schema["~standard"].validate(value);
  if (!result.issues) return result.value;
  throw new StateInputError(key, describeIssues(result.issues), value, node);
}

function describeIssues(issues: ReadonlyArray<StandardIssue>): string[] {
  return issues.map((issue) => {
    const path = (issue.path ?? []).map((p) => String(typeof p === "object" ? p.key : p)).join(".");
    return path ? `${path}: ${issue.message}` : issue.message;
  });
}

/**
 * Checks the run's `config.context` against the graph's context schema (a Standard Schema
 * validator); a run given no context has its `configurable` checked instead, as LangGraph.js
 * does (graphs that read their settings from `configurable`). As in LangGraph.js, nodes then see
 * the values as given: the schema's defaults are not filled in.
 */
export async function checkContext(
  schema: unknown,
  config: { context?: unknown; configurable?: unknown },
): Promise<void> {
  if (!isStandardSchema(schema)) return;
  const given = config.context !== undefined ? config.context : config.configurable;
  const result = await schema["~standard"].validate(given ?? {});
  if (result.issues) throw new InvalidContextError(describeIssues(result.issues));
}
