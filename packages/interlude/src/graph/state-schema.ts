/**
 * `StateSchema`: LangGraph 1.x's state definition over any Standard Schema (zod 4, valibot,
 * ...), its fields (state-fields.ts) by name, and the messages fields.
 */

import type { Channel } from "../channels/base.js";
import type { StandardSchemaV1 } from "../interrupt/standard-schema.js";
import { type Messages, messagesDeltaReducer, messagesStateReducer } from "../messages/reducer.js";
import type { BaseMessage } from "../messages/types.js";
import type { OverwriteValue } from "../primitives/overwrite.js";
import type { ChannelSpec } from "./annotation.js";
import { SCHEMA_DEFAULT } from "./schema-meta.js";
import { DeltaValue, ReducedValue, type StateSchemaFields, type UntrackedValue } from "./state-fields.js";
import { schemaChannels, schemaJson, validatedState } from "./state-schema-views.js";

export {
  DeltaValue,
  type DeltaValueInit,
  ReducedValue,
  type ReducedValueInit,
  type StateSchemaFields,
  UntrackedValue,
} from "./state-fields.js";

/** The same symbols as LangGraph.js, so a value made by either library is recognised. */
const STATE_SCHEMA = Symbol.for("langgraph.state.state_schema");

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
    return schemaChannels(this.fields);
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
    return validatedState(this.fields, data);
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
