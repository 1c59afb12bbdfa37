/**
 * The Standard Schema interface (https://standardschema.dev), copied as types so that any
 * validator (zod, valibot, arktype) can be passed without depending on one.
 */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
  };
}

type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<StandardIssue> };

export interface StandardIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as StandardSchemaV1)["~standard"]?.validate === "function"
  );
}

/** A Standard Schema that can also describe itself as JSON Schema (`~standard.jsonSchema`, zod 4.2+): what LangGraph calls serializable. */
export function isSerializableSchema(value: unknown): value is StandardSchemaV1 {
  return isStandardSchema(value) && "jsonSchema" in value["~standard"];
}

/**
 * JSON Schema of a validator, when it can describe itself: zod 4 (`z.toJSONSchema` via
 * `toJSONSchema()`), validators exposing the Standard JSON Schema `~standard.jsonSchema`, or
 * a plain JSON Schema passed alongside as `jsonSchema`. `target`: the draft asked of
 * `~standard.jsonSchema` (an interrupt's response schema is 2020-12, as LangChain's
 * `toJsonSchema` writes it).
 */
export function describeSchema(
  schema: unknown,
  target: "draft-07" | "draft-2020-12" = "draft-2020-12",
): Record<string, unknown> | undefined {
  const std = (schema as { "~standard"?: { jsonSchema?: { input?: (o: unknown) => unknown } } })?.["~standard"];
  try {
    if (std?.jsonSchema?.input) return std.jsonSchema.input({ target }) as Record<string, unknown>;
    const own = (schema as { toJSONSchema?: () => unknown }).toJSONSchema;
    if (typeof own === "function") return own.call(schema) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  return undefined;
}

/** LangGraph's `getJsonSchemaFromSchema`: a state field's or context's JSON Schema, draft-07 as LangGraph.js writes it. */
export function getJsonSchemaFromSchema(schema: unknown): Record<string, unknown> | undefined {
  return describeSchema(schema, "draft-07");
}
