/**
 * LangGraph's way of attaching a reducer and a default to a zod field: `withLangGraph(schema,
 * meta)` or `schema.register(registry, meta)`. The metadata is kept in a map keyed by the
 * schema object, so neither this file nor the builder imports zod.
 */
import type { Reducer } from "../channels/binop.js";

export interface SchemaMeta<Value = any, Update = any> {
  reducer?: { fn: Reducer<Value, Update>; schema?: unknown };
  default?: () => Value;
  jsonSchemaExtra?: Record<string, unknown>;
}

const metaBySchema = new Map<object, SchemaMeta>();

export function schemaMeta(schema: unknown): SchemaMeta | undefined {
  return typeof schema === "object" && schema !== null ? metaBySchema.get(schema) : undefined;
}

/**
 * Registry accepted by zod's `.register(registry, meta)`; zod calls `add`. Typed loosely so
 * that zod 3 and 4 schemas both register.
 */
export const registry = {
  add<S extends object>(schema: S, meta?: SchemaMeta): S {
    if (!meta) return schema;
    if (meta.reducer && !meta.default) meta.default = defaultOf(schema);
    metaBySchema.set(schema, meta);
    return schema;
  },
  get(schema: object): SchemaMeta | undefined {
    return metaBySchema.get(schema);
  },
  has(schema: object): boolean {
    return metaBySchema.has(schema);
  },
  remove(schema: object) {
    metaBySchema.delete(schema);
    return registry;
  },
  clear() {
    metaBySchema.clear();
    return registry;
  },
};

/** Attaches LangGraph metadata (a reducer, a default) to a zod field and returns the field. */
export function withLangGraph<S extends object>(schema: S, meta: SchemaMeta): S {
  return registry.add(schema, meta);
}

interface ZodLike {
  _zod?: { def?: { type?: string; defaultValue?: unknown; shape?: Record<string, unknown> } };
  _def?: { typeName?: string; defaultValue?: () => unknown; shape?: () => Record<string, unknown> };
  shape?: Record<string, unknown>;
}

/** The default of a zod field made with `.default(...)` (zod 4 or 3), as a getter. */
export function defaultOf(schema: unknown): (() => unknown) | undefined {
  const zod = schema as ZodLike;
  if (zod?._zod?.def?.type === "default") {
    const def = zod._zod.def;
    return () => structuredClone(def.defaultValue);
  }
  if (zod?._def?.typeName === "ZodDefault") return zod._def.defaultValue;
  return undefined;
}

/** The fields of a zod object schema (zod 4 or 3), or undefined when `schema` is not one. */
export function zodObjectShape(schema: unknown): Record<string, unknown> | undefined {
  const zod = schema as ZodLike;
  if (typeof schema !== "object" || schema === null) return undefined;
  if (zod._zod?.def?.type === "object") return zod._zod.def.shape ?? zod.shape;
  if (zod._def?.typeName === "ZodObject") return zod.shape ?? zod._def.shape?.();
  return undefined;
}
