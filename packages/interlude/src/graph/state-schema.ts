/**
 * `StateSchema` and `ReducedValue`: LangGraph 1.x's state definition over any Standard Schema
 * (zod 4, valibot, ...). A field is a schema (the last value written wins) or a `ReducedValue`
 * (writes are combined by its reducer).
 */

import type { Channel } from "../channels/base.js";
import type { Reducer } from "../channels/binop.js";
import type { DeltaReducer } from "../channels/delta.js";
import type { StandardSchemaV1 } from "../interrupt/standard-schema.js";
import { type Messages, messagesDeltaReducer, messagesStateReducer } from "../messages/reducer.js";
import type { BaseMessage } from "../messages/types.js";
import type { OverwriteValue } from "../primitives/overwrite.js";
import type { ChannelSpec } from "./annotation.js";
import { SCHEMA_DEFAULT } from "./schema-meta.js";
import { schemaChannels, schemaJson, validatedState } from "./state-schema-views.js";

/** The same symbols as LangGraph.js, so a value made by either library is recognised. */
const STATE_SCHEMA = Symbol.for("langgraph.state.state_schema");
const REDUCED_VALUE = Symbol.for("langgraph.state.reduced_value");

export interface ReducedValueInit<Value, Input> {
  reducer: Reducer<Value, Input>;
  inputSchema?: StandardSchemaV1<Input>;
  jsonSchemaExtra?: Record<string, unknown>;
}

/** What `ReducedValue` and `DeltaValue` share: the value's schema, a reducer, and what a write must be. */
abstract class ReducingField<Value, Input, R> {
  readonly reducer: R;
  readonly inputSchema: StandardSchemaV1<Input> | StandardSchemaV1<Value>;
  readonly jsonSchemaExtra?: Record<string, unknown>;
  declare ValueType: Value;
  declare InputType: Input;

  constructor(
    readonly valueSchema: StandardSchemaV1<unknown, Value>,
    init: { reducer: R; inputSchema?: StandardSchemaV1<Input>; jsonSchemaExtra?: Record<string, unknown> },
  ) {
    this.reducer = init.reducer;
    this.inputSchema = init.inputSchema ?? (valueSchema as StandardSchemaV1<Value>);
    this.jsonSchemaExtra = init.jsonSchemaExtra;
  }
}

/** Whether `value` carries the brand `symbol` (set by this library or LangGraph.js, which share them). */
function branded(value: unknown, symbol: symbol): boolean {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[symbol] === true;
}

export class ReducedValue<Value = unknown, Input = Value> extends ReducingField<Value, Input, Reducer<Value, Input>> {
  readonly [REDUCED_VALUE] = true;

  static isInstance(value: unknown): value is ReducedValue {
    return branded(value, REDUCED_VALUE);
  }
}

const DELTA_VALUE = Symbol.for("langgraph.state.delta_value");

export interface DeltaValueInit<Value, Input> {
  /** Folds a step's writes in one call (see `DeltaChannel`). */
  reducer: DeltaReducer<Value, Input>;
  /** What each write must be (default: the value's schema). */
  inputSchema?: StandardSchemaV1<Input>;
  snapshotFrequency?: number;
  jsonSchemaExtra?: Record<string, unknown>;
}

/** A `StateSchema` field backed by a `DeltaChannel` (LangGraph.js's `DeltaValue`). */
export class DeltaValue<Value = unknown, Input = Value> extends ReducingField<
  Value,
  Input,
  DeltaReducer<Value, Input>
> {
  readonly [DELTA_VALUE] = true;
  readonly snapshotFrequency?: number;

  constructor(valueSchema: StandardSchemaV1<unknown, Value>, init: DeltaValueInit<Value, Input>) {
    super(valueSchema, init);
    this.snapshotFrequency = init.snapshotFrequency;
  }

  static isInstance(value: unknown): value is DeltaValue {
    return branded(value, DELTA_VALUE);
  }
}

const UNTRACKED_VALUE = Symbol.for("langgraph.state.untracked_value");

/** A `StateSchema` field that lives only as long as a run (see `UntrackedValueChannel`). */
export class UntrackedValue<Value = unknown> {
  readonly [UNTRACKED_VALUE] = true;
  readonly guard: boolean;
  declare ValueType: Value;
  constructor(
    readonly schema?: StandardSchemaV1<unknown, Value>,
    init: { guard?: boolean } = {},
  ) {
    this.guard = init.guard ?? true;
  }

  static isInstance(value: unknown): value is UntrackedValue {
    return typeof value === "object" && value !== null && UNTRACKED_VALUE in value;
  }
}

type FieldValue<F> =
  F extends ReducedValue<infer V, any>
    ? V
    : F extends DeltaValue<infer V, any>
      ? V
      : F extends UntrackedValue<infer V>
        ? V
        : F extends StandardSchemaV1<any, infer O>
          ? O
          : never;
type FieldUpdate<F> =
  F extends ReducedValue<infer V, infer I>
    ? I | OverwriteValue<V>
    : F extends DeltaValue<any, infer I>
      ? I
      : F extends UntrackedValue<infer V>
        ? V
        : F extends StandardSchemaV1<infer In, any>
          ? In
          : never;

export type StateSchemaFields = Record<
  string,
  ReducedValue<any, any> | DeltaValue<any, any> | UntrackedValue<any> | StandardSchemaV1
>;

export class StateSchema<F extends StateSchemaFields = StateSchemaFields> {
  readonly [STATE_SCHEMA] = true;
  declare State: { [K in keyof F]: FieldValue<F[K]> };
  declare Update: { [K in keyof F]?: FieldUpdate<F[K]> };
  /**
   * Type only: a node of this state, to type nodes apart from the graph (`typeof State.Node`).
   * Declared as a method's type, so that a schema stays assignable to a wider one.
   */
  declare Node: {
    node(
      state: { [K in keyof F]: FieldValue<F[K]> },
      config?: any,
    ): { [K in keyof F]?: FieldUpdate<F[K]> } | Promise<{ [K in keyof F]?: FieldUpdate<F[K]> }>;
  }["node"];
  /** Phantom: the fields as channel specs, so that `new StateGraph(schema)` types its nodes. */
  declare "~spec": { [K in keyof F]: ChannelSpec<FieldValue<F[K]>, FieldUpdate<F[K]>> };
  constructor(readonly fields: F) {}

  /** A new channel per field, as a graph of this state starts with. */
  getChannels(): Record<string, Channel> {
    return schemaChannels(this);
  }

  /** The state's JSON Schema: fields without a default are required. */
  getJsonSchema(): Record<string, unknown> {
    return schemaJson(this.fields, "value");
  }

  /** An update's JSON Schema: every field optional, a reduced field as its reducer takes it. */
  getInputJsonSchema(): Record<string, unknown> {
    return schemaJson(this.fields, "input");
  }

  getChannelKeys(): string[] {
    return Object.keys(this.fields);
  }

  /** The same as `getChannelKeys()`: a StateSchema has no managed values. */
  getAllKeys(): string[] {
    return Object.keys(this.fields);
  }

  /** `data` with each field checked (and coerced) by its schema; a failure is a `StateInputError`. */
  validateInput<T>(data: T): Promise<T> {
    return validatedState(this, data);
  }

  static isInstance(value: unknown): value is StateSchema {
    return (
      typeof value === "object" && value !== null && (value as { [STATE_SCHEMA]?: boolean })[STATE_SCHEMA] === true
    );
  }
}

/** A messages field for `StateSchema`: a list of messages combined by `messagesStateReducer`. */
// Annotated, not inferred: the declaration must name `BaseMessage`, not what it resolves to here.
export const MessagesValue: ReducedValue<BaseMessage[], Messages> = new ReducedValue<BaseMessage[], Messages>(
  Object.assign(
    {
      "~standard": {
        version: 1,
        vendor: "interlude",
        validate: (value: unknown) =>
          Array.isArray(value)
            ? { value: value as BaseMessage[] }
            : { issues: [{ message: "Expected a list of messages" }] },
      },
    } as StandardSchemaV1<unknown, BaseMessage[]>,
    // As LangGraph.js's: an empty list to start from, so the first write goes through the reducer.
    { [SCHEMA_DEFAULT]: () => [] },
  ),
  {
    reducer: messagesStateReducer,
    // An update may be one message or a list of message-likes: the reducer coerces them.
    inputSchema: {
      "~standard": { version: 1, vendor: "interlude", validate: (value) => ({ value: value as Messages }) },
    },
  },
);

/** `MessagesValue` on a `DeltaChannel` (LangGraph.js's `MessagesDeltaValue`, experimental there). */
export const MessagesDeltaValue: DeltaValue<BaseMessage[], Messages> = new DeltaValue<BaseMessage[], Messages>(
  MessagesValue.valueSchema,
  { reducer: messagesDeltaReducer, inputSchema: MessagesValue.inputSchema as StandardSchemaV1<Messages> },
);
