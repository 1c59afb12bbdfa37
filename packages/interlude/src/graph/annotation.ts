/**
 * `Annotation`: declares the state's keys and how each combines writes, as in LangGraph.js.
 *
 *   const State = Annotation.Root({
 *     plan: Annotation<string>(),
 *     log: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
 *   });
 */
import type { Channel } from "../channels/base.js";
import type { BinaryOperatorAggregate, Reducer } from "../channels/binop.js";
import type { DeltaChannel } from "../channels/delta.js";
import { refuseUnknownGraphOptions } from "../errors/options.js";
import type { OverwriteValue } from "../primitives/overwrite.js";

export interface ChannelSpec<Value = unknown, Update = Value> {
  readonly lg_kind: "channel";
  readonly reducer?: Reducer<Value, Update>;
  readonly default?: () => Value;
  /** Phantom fields carrying the types. */
  readonly ValueType?: Value;
  readonly UpdateType?: Update;
}

export interface ReducerOptions<Value, Update> {
  reducer: Reducer<Value, Update>;
  default?: () => Value;
}

/** Legacy spelling of the reducer option (`value`), still accepted by LangGraph.js. */
export interface LegacyReducerOptions<Value, Update> {
  value: Reducer<Value, Update>;
  default?: () => Value;
}

export type StateSpec = Record<string, ChannelSpec<any, any>>;

/** A state declared without static keys (a zod object, a plain schema) is typed loosely. */
export type StateType<S extends StateSpec> = string extends keyof S
  ? any
  : { [K in keyof S]: S[K] extends ChannelSpec<infer V, any> ? V : never };
export type UpdateType<S extends StateSpec> = string extends keyof S
  ? any
  : { [K in keyof S]?: S[K] extends ChannelSpec<any, infer U> ? U : never };

export class AnnotationRoot<S extends StateSpec> {
  readonly lg_name = "AnnotationRoot";
  declare State: StateType<S>;
  declare Update: UpdateType<S>;
  declare Node: (state: StateType<S>, config?: any) => UpdateType<S> | Promise<UpdateType<S>>;
  constructor(readonly spec: S) {}
}

function annotation<Value>(): ChannelSpec<Value, Value>;
/** A key with a reducer also takes an overwrite of its value (`Overwrite`), as LangGraph.js types it. */
function annotation<Value, Update = Value>(
  options: ReducerOptions<Value, Update> | LegacyReducerOptions<Value, Update>,
): ChannelSpec<Value, Update | OverwriteValue<Value>>;
function annotation<Value, Update = Value>(
  options?: ReducerOptions<Value, Update> | LegacyReducerOptions<Value, Update>,
): ChannelSpec<Value, any> {
  if (!options) return { lg_kind: "channel" };
  // A misspelt `reducer` would leave the key a plain last value, its updates overwriting.
  refuseUnknownGraphOptions("Annotation()", options, ["reducer", "value", "default"]);
  // The reducer never sees an overwrite: the channel takes it first (channels/binop.ts).
  const reducer = "reducer" in options ? options.reducer : options.value;
  return { lg_kind: "channel", reducer, default: options.default } as ChannelSpec<Value, any>;
}

/**
 * A key of `Annotation.Root`: a declared channel, `Annotation<T>` itself, not called (a plain
 * value, as LangGraph.js reads it), or a channel instance (`new Topic()`, a `BaseChannel` of your own).
 */
type RootEntry = ChannelSpec<any, any> | (() => ChannelSpec<any, any>) | Channel<any, any>;

/**
 * The channels of `Annotation.Root(entries)`. A channel instance is read first (some are channel
 * specs too): one with a reducer also takes an overwrite of its value, as LangGraph.js types it.
 */
type RootSpec<D extends Record<string, RootEntry>> = {
  [K in keyof D]: D[K] extends BinaryOperatorAggregate<infer V, infer U>
    ? ChannelSpec<V, U | OverwriteValue<V>>
    : D[K] extends DeltaChannel<infer V, infer U>
      ? ChannelSpec<V, U | OverwriteValue<V>>
      : D[K] extends Channel<infer V, infer U>
        ? ChannelSpec<V, U>
        : D[K] extends ChannelSpec<any, any>
          ? D[K]
          : D[K] extends () => ChannelSpec<infer V, any>
            ? ChannelSpec<V, V>
            : never;
};

export const Annotation = Object.assign(annotation, {
  Root<D extends Record<string, RootEntry>>(spec: D): AnnotationRoot<RootSpec<D>> {
    return new AnnotationRoot(spec as unknown as RootSpec<D>);
  },
});

export function isAnnotationRoot(value: unknown): value is AnnotationRoot<StateSpec> {
  return (
    value instanceof AnnotationRoot ||
    (typeof value === "object" && value !== null && (value as AnnotationRoot<StateSpec>).lg_name === "AnnotationRoot")
  );
}
