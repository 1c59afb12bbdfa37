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

/**
 * Registry accepted by zod's `.register(registry, meta)`; zod calls `add`. It has the public
 * shape of zod 4's `$ZodRegistry` (without importing zod, an optional peer) so that
 * `z.string().register(registry, meta)` type-checks; zod 3 schemas register through `add` too.
 */
export class LangGraphRegistry {
  /** Read by zod's types only: what `meta` must be. */
  declare readonly _meta: SchemaMeta;
  /** Read by zod's types only: which schemas register. */
  declare readonly _schema: any;
  _map: WeakMap<any, SchemaMeta> = new WeakMap();
  readonly _idmap = new Map<string, any>();

  add<S extends object>(schema: S, meta?: SchemaMeta): this {
    if (!meta) return this;
    if (meta.reducer && !meta.default) meta.default = defaultOf(schema);
    this._map.set(schema, meta);
    return this;
  }
  get(schema: object): SchemaMeta | undefined {
    return this._map.get(schema);
  }
  has(schema: object): boolean {
    return this._map.has(schema);
  }
  remove(schema: object): this {
    this._map.delete(schema);
    return this;
  }
  clear(): this {
    this._map = new WeakMap();
    return this;
  }
}

export const registry: LangGraphRegistry = new LangGraphRegistry();

export function schemaMeta(schema: unknown): SchemaMeta | undefined {
  return typeof schema === "object" && schema !== null ? registry.get(schema) : undefined;
}

/** Attaches LangGraph metadata (a reducer, a default) to a zod field and returns the field. */
export function withLangGraph<S extends object>(schema: S, meta: SchemaMeta): S {
  registry.add(schema, meta);
  return schema;
}

interface ZodLike {
  _zod?: { def?: { type?: string; defaultValue?: unknown; shape?: Record<string, unknown> } };
  _def?: { typeName?: string; defaultValue?: () => unknown; shape?: () => Record<string, unknown> };
  shape?: Record<string, unknown>;
}

/** Where a Standard Schema Interlude makes itself (not zod) keeps its default (`MessagesValue`'s `[]`). */
export const SCHEMA_DEFAULT = Symbol.for("interlude.schemaDefault");

/** The default of a zod field made with `.default(...)` (zod 4 or 3), as a getter. */
export function defaultOf(schema: unknown): (() => unknown) | undefined {
  const own = (schema as { [SCHEMA_DEFAULT]?: unknown } | null | undefined)?.[SCHEMA_DEFAULT];
  if (typeof own === "function") return own as () => unknown;
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
