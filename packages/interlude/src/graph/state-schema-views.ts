/**
 * What LangGraph.js's `StateSchema` tells about itself outside a graph: its channels, the JSON
 * Schemas of its state and of an update, and an input checked field by field. Channels and
 * checks come from what `new StateGraph(schema)` reads of it (state-definition.ts), so a graph
 * and its schema never disagree.
 */
import type { Channel } from "../channels/base.js";
import { BinaryOperatorAggregate } from "../channels/binop.js";
import { isChannel } from "../channels/instance.js";
import { LastValue } from "../channels/last-value.js";
import { getJsonSchemaFromSchema, isStandardSchema } from "../interrupt/standard-schema.js";
import type { ChannelSpec } from "./annotation.js";
import { defaultOf } from "./schema-meta.js";
import { part } from "./state-definition.js";
import { DeltaValue, ReducedValue, type StateSchemaFields, UntrackedValue } from "./state-schema.js";
import { validated } from "./state-validation.js";

type JsonSchema = Record<string, unknown>;

/** A new channel per field, as a graph of the schema starts with. */
export function schemaChannels(schema: object): Record<string, Channel> {
  const channels: Record<string, Channel> = {};
  for (const [key, spec] of Object.entries(part(schema, "StateSchema").spec)) {
    if (isChannel(spec)) {
      channels[key] = spec;
      continue;
    }
    const { reducer, default: initial } = spec as ChannelSpec;
    if (reducer) channels[key] = new BinaryOperatorAggregate(reducer, initial);
    else channels[key] = new LastValue(initial ?? key);
  }
  return channels;
}

/** The JSON Schema of the state (`value`: fields without a default are required) or of an update (`input`: none is). */
export function schemaJson(fields: StateSchemaFields, of: "value" | "input"): JsonSchema {
  const properties: JsonSchema = {};
  const required: string[] = [];
  for (const [key, field] of Object.entries(fields)) {
    const [schema, extra] =
      DeltaValue.isInstance(field) || ReducedValue.isInstance(field)
        ? [of === "value" ? field.valueSchema : field.inputSchema, field.jsonSchemaExtra]
        : UntrackedValue.isInstance(field)
          ? [field.schema, undefined]
          : [isStandardSchema(field) ? field : undefined, undefined];
    const described = schema && getJsonSchemaFromSchema(schema);
    const json = extra ? { ...described, ...extra } : described;
    if (!json) continue;
    properties[key] = json;
    const valueSchema = ReducedValue.isInstance(field) || DeltaValue.isInstance(field) ? field.valueSchema : schema;
    if (of === "value" && defaultOf(valueSchema) === undefined) required.push(key);
  }
  if (of === "input") return { type: "object", properties };
  return { type: "object", properties, required: required.length > 0 ? required : undefined };
}

/** `data` with each field checked (and coerced) by its schema; other keys pass as given. A failure is a `StateInputError`. */
export async function validatedState<T>(schema: object, data: T): Promise<T> {
  if (data === null || typeof data !== "object") return data;
  const { validators } = part(schema, "StateSchema");
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) out[key] = await validated(validators, key, value);
  return out as T;
}
