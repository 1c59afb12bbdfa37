/**
 * The fields of LangGraph 1.x's `StateSchema`: a schema (the last value written wins),
 * `ReducedValue` (writes combined by its reducer), `DeltaValue` (on a `DeltaChannel`) and
 * `UntrackedValue` (kept only while a run lasts).
 */

import type { Reducer } from "../channels/binop.js";
import type { DeltaReducer } from "../channels/delta.js";
import type { StandardSchemaV1 } from "../interrupt/standard-schema.js";

/** The same symbols as LangGraph.js, so a value made by either library is recognised. */
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

export type StateSchemaFields = Record<
  string,
  ReducedValue<any, any> | DeltaValue<any, any> | UntrackedValue<any> | StandardSchemaV1
>;
