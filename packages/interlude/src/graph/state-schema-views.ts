/**
 * What a `StateSchema`'s fields make: the state spec and validators `new StateGraph(schema)`
 * reads (`partOfFields`), and what the schema tells about itself outside a graph, from the same
 * reading, so a graph and its schema never disagree: its channels, the JSON Schemas of its state
 * and of an update, and an input checked field by field.
 */
import type { Channel } from "../channels/base.js";
import { BinaryOperatorAggregate } from "../channels/binop.js";
import { DeltaChannel } from "../channels/delta.js";
import { isChannel } from "../channels/instance.js";
import { LastValue } from "../channels/last-value.js";
import { UntrackedValueChannel } from "../channels/untracked.js";
import { StateGraphInputError } from "../errors/state.js";
import { getJsonSchemaFromSchema, isStandardSchema, type StandardSchemaV1 } from "../interrupt/standard-schema.js";
import type { ChannelSpec, StateSpec } from "./annotation.js";
import { defaultOf } from "./schema-meta.js";
import { DeltaValue, ReducedValue, type StateSchemaFields, UntrackedValue } from "./state-fields.js";
import { reducedFieldValidator, validated } from "./state-validation.js";

type JsonSchema = Record<string, unknown>;

/** The state spec and field validators of a StateSchema's fields. */
export function partOfFields(fields: StateSchemaFields): {
  spec: StateSpec;
  validators: Map<string, StandardSchemaV1>;
} {
  const spec: StateSpec = {};
  const validators = new Map<string, StandardSchemaV1>();
  for (const [key, field] of Object.entries(fields)) {
    if (UntrackedValue.isInstance(field)) {
      const initial = field.schema && defaultOf(field.schema);
      spec[key] = new UntrackedValueChannel({ guard: field.guard, initialValueFactory: initial as never });
      if (field.schema) validators.set(key, field.schema);
    } else if (DeltaValue.isInstance(field)) {
      const initial = defaultOf(field.valueSchema) as (() => unknown) | undefined;
      spec[key] = new DeltaChannel(field.reducer, {
        snapshotFrequency: field.snapshotFrequency,
        initialValueFactory: initial,
      });
      validators.set(key, reducedFieldValidator(field));
    } else if (ReducedValue.isInstance(field)) {
      spec[key] = { lg_kind: "channel", reducer: field.reducer, default: defaultOf(field.valueSchema) as never };
      validators.set(key, reducedFieldValidator(field));
    } else if (isStandardSchema(field)) {
      spec[key] = { lg_kind: "channel", default: defaultOf(field) as never };
      validators.set(key, field);
    } else throw new StateGraphInputError(`"${key}" field of the StateSchema`, field);
  }
  return { spec, validators };
}

/** A new channel per field, as a graph of the schema starts with. */
export function schemaChannels(fields: StateSchemaFields): Record<string, Channel> {
  const channels: Record<string, Channel> = {};
  for (const [key, spec] of Object.entries(partOfFields(fields).spec)) {
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
export async function validatedState<T>(fields: StateSchemaFields, data: T): Promise<T> {
  if (data === null || typeof data !== "object") return data;
  const { validators } = partOfFields(fields);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) out[key] = await validated(validators, key, value);
  return out as T;
}
