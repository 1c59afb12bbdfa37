/**
 * The type helpers `@langchain/langgraph` exports for code written outside the builder (a node
 * typed `GraphNode<typeof State>`, a router, a stream chunk), with LangGraph.js's names and type
 * parameters, stated over Interlude's own types: what Interlude passes, accepts and returns.
 * Types only; none of them imports `@langchain/core`, so the root entry stays free of it.
 */
import type { END } from "../constants.js";
import type { NodeError } from "../errors/node.js";
import type { interrupt } from "../interrupt/interrupt.js";
import type { StandardSchemaV1 } from "../interrupt/standard-schema.js";
import type { CommandInstance } from "../primitives/command.js";
import type { Send } from "../primitives/send.js";
import type { LifecycleEntry, StreamTransformer } from "../protocol/types.js";
import type {
  AnnotationRoot,
  ChannelSpec,
  LegacyReducerOptions,
  ReducerOptions,
  StateSpec,
  StateType,
  UpdateType,
} from "./annotation.js";
import type { CompiledStateGraph } from "./compiled.js";
import type { AddNodeOptions, NodeDefinition } from "./declaration.js";
import type { RunnableLike } from "./runnable.js";
import type { LangGraphRunnableConfig } from "./runtime.js";
import type { NodeAction, SpecOfDefinition, StateDefinitionInit } from "./state-graph.js";
import type { DeltaValue, ReducedValue, StateSchema, StateSchemaFields, UntrackedValue } from "./state-schema.js";

// ---- State definitions ----

export type { Reducer as BinaryOperator } from "../channels/binop.js";
export type { StateSchemaFields } from "./state-schema.js";

/** A state's channels (LangGraph.js's name for what Interlude calls a `StateSpec`). */
export type StateDefinition = StateSpec;

/** The channels a schema declares (Annotation, StateSchema, zod object, channels), or never for anything else. */
export type ToStateDefinition<T> = T extends AnnotationRoot<any> | { "~spec": StateSpec } | StandardSchemaV1 | StateSpec
  ? SpecOfDefinition<T>
  : never;

// Tested before StateType is applied: StateType<never> is any (a state without static keys).
type SpecOf<Schema> = ToStateDefinition<Schema> extends infer S extends StateSpec ? S : never;

/** The state a schema's nodes receive; `Fallback` when `Schema` is not a schema. */
export type ExtractStateType<Schema, Fallback = Schema> = [SpecOf<Schema>] extends [never]
  ? Fallback
  : StateType<SpecOf<Schema>>;

/** What a schema's nodes may return (every key optional); `Partial<FallbackBase>` when `Schema` is not a schema. */
export type ExtractUpdateType<Schema, FallbackBase = Schema> = [SpecOf<Schema>] extends [never]
  ? Partial<FallbackBase>
  : UpdateType<SpecOf<Schema>>;

/** The options of `Annotation(...)`: a reducer (or its legacy name `value`) and a default. */
export type SingleReducer<ValueType, UpdateType = ValueType> =
  | ReducerOptions<ValueType, UpdateType>
  | LegacyReducerOptions<ValueType, UpdateType>
  | null;

/** A node over the state `SD` declares, as `addNode` takes it: a function or a Runnable. */
export type NodeType<SD extends StateDefinition> =
  | NodeAction<StateType<SD>, UpdateType<SD> | Partial<StateType<SD>>>
  | RunnableLike<StateType<SD>, UpdateType<SD> | Partial<StateType<SD>>>;

/** A schema of `config.context`: any Standard Schema validator, or an Annotation. */
export type ContextSchemaInit = StandardSchemaV1 | AnnotationRoot<StateDefinition>;

/**
 * The options after the state in `new StateGraph(state, options)`. Interlude reads `input`,
 * `output` and `context`; `interrupt`, `writer` and `nodes` only carry types.
 */
export interface StateGraphOptions<
  I extends StateDefinitionInit | undefined = undefined,
  O extends StateDefinitionInit | undefined = undefined,
  C extends StateDefinitionInit | undefined = undefined,
  N extends string = string,
  InterruptType = unknown,
  WriterType = unknown,
> {
  input?: I;
  output?: O;
  context?: C;
  interrupt?: InterruptType;
  writer?: WriterType;
  nodes?: N[];
}

export interface StateGraphArgsWithStateSchema<
  SD extends StateDefinition,
  I extends StateDefinition,
  O extends StateDefinition,
> {
  stateSchema: AnnotationRoot<SD>;
  input?: AnnotationRoot<I>;
  output?: AnnotationRoot<O>;
}

export interface StateGraphArgsWithInputOutputSchemas<SD extends StateDefinition, O extends StateDefinition = SD> {
  input: AnnotationRoot<SD>;
  output: AnnotationRoot<O>;
}

/** `addNode`'s options, with the node names `ends` may list and the state and update of `errorHandler`. */
export type StateGraphAddNodeOptions<
  Nodes extends string = string,
  InputSchema extends StateDefinitionInit | undefined = StateDefinitionInit | undefined,
  HandlerState = InputSchema extends StateDefinitionInit ? ExtractStateType<InputSchema> : unknown,
  Update = unknown,
> = Omit<AddNodeOptions, "input" | "ends" | "errorHandler"> & {
  input?: InputSchema;
  ends?: readonly Nodes[];
  errorHandler?: (
    state: HandlerState,
    error: NodeError,
    config?: LangGraphRunnableConfig,
  ) => GraphNodeReturnValue<Update, Nodes>;
};

/** A node as the builder keeps it (`builder.nodes[name]`); the builder keeps actions untyped. */
export type StateGraphNodeSpec<_RunInput, _RunOutput> = NodeDefinition;

// ---- StateSchema ----

export type StateSchemaField<Input = unknown, Output = Input> =
  | DeltaValue<Input, Output>
  | ReducedValue<Input, Output>
  | UntrackedValue<Output>
  | StandardSchemaV1<Input, Output>;

export type AnyStateSchema = StateSchema<any>;

/** The channel a StateSchema field declares: its value, and what a node may write to it. */
export type StateSchemaFieldToChannel<F> =
  F extends StateSchemaField<any, any> ? StateSchema<{ field: F }>["~spec"]["field"] : ChannelSpec<unknown, unknown>;

export type StateSchemaFieldsToStateDefinition<TFields extends StateSchemaFields> = StateSchema<TFields>["~spec"];
export type InferStateSchemaValue<TFields extends StateSchemaFields> = StateSchema<TFields>["State"];
export type InferStateSchemaUpdate<TFields extends StateSchemaFields> = StateSchema<TFields>["Update"];

// ---- Nodes and routers written outside the builder ----

/** What a node returns: an update or a Command (routing to `Nodes`), or a promise of either. */
export type GraphNodeReturnValue<Update, Nodes extends string = string> =
  | Update
  | CommandInstance<unknown, Update, Nodes>
  | Promise<Update | CommandInstance<unknown, Update, Nodes>>;

/** `GraphNode<{ InputSchema, OutputSchema, ContextSchema, Nodes }>`: a node whose input and output differ. */
export interface GraphNodeTypes<
  InputSchema = unknown,
  OutputSchema = unknown,
  ContextSchema = unknown,
  Nodes extends string = string,
> {
  InputSchema?: InputSchema;
  OutputSchema?: OutputSchema;
  ContextSchema?: ContextSchema;
  Nodes?: Nodes;
}

/** `ConditionalEdgeRouter<{ InputSchema, ContextSchema, Nodes }>`. */
export interface ConditionalEdgeRouterTypes<
  InputSchema = unknown,
  ContextSchema = unknown,
  Nodes extends string = string,
> {
  InputSchema?: InputSchema;
  ContextSchema?: ContextSchema;
  Nodes?: Nodes;
}

// As LangGraph.js tells a bag from a schema: a union or `any` (true | false) counts as a schema.
type IsBag<T, Slot extends string> = T extends { [K in Slot]: { [S in K]: unknown } }[Slot] ? true : false;
type BagInput<Bag> = Bag extends { InputSchema: infer I } ? ExtractStateType<I> : unknown;
type BagOutput<Bag> = Bag extends { OutputSchema: infer O } ? ExtractUpdateType<O> : Partial<BagInput<Bag>>;
type BagNodes<Bag> = Bag extends { Nodes: infer N extends string } ? N : string;
// A context that is not a record falls back to any record: LangGraphRunnableConfig requires one.
type BagContext<Bag> = Bag extends { ContextSchema: infer C }
  ? ExtractStateType<C> extends infer Context extends Record<string, unknown>
    ? Context
    : Record<string, unknown>
  : Record<string, unknown>;

/**
 * A node function typed from its schema, for nodes written apart from the graph:
 * `GraphNode<typeof State, Context, Nodes>`, or a type bag (`GraphNodeTypes`).
 */
export type GraphNode<
  Schema,
  Context extends Record<string, any> = Record<string, any>,
  Nodes extends string = string,
> =
  IsBag<Schema, "InputSchema" | "OutputSchema"> extends true
    ? (
        state: BagInput<Schema>,
        config: LangGraphRunnableConfig<BagContext<Schema>>,
      ) => GraphNodeReturnValue<BagOutput<Schema>, BagNodes<Schema>>
    : (
        state: ExtractStateType<Schema>,
        config: LangGraphRunnableConfig<Context>,
      ) => GraphNodeReturnValue<ExtractUpdateType<Schema>, Nodes>;

type RouterReturnValue<Nodes extends string, State> =
  | Nodes
  | typeof END
  | Send<Nodes, State>
  | Array<Nodes | Send<Nodes, State>>;

/** A conditional edge's path function typed from its schema: `ConditionalEdgeRouter<typeof State, Context, Nodes>`, or a type bag. */
export type ConditionalEdgeRouter<
  Schema,
  Context extends Record<string, any> = Record<string, any>,
  Nodes extends string = string,
> =
  IsBag<Schema, "InputSchema" | "ContextSchema"> extends true
    ? (
        state: BagInput<Schema>,
        config: LangGraphRunnableConfig<BagContext<Schema>>,
      ) =>
        | RouterReturnValue<BagNodes<Schema>, BagInput<Schema>>
        | Promise<RouterReturnValue<BagNodes<Schema>, BagInput<Schema>>>
    : (
        state: ExtractStateType<Schema>,
        config: LangGraphRunnableConfig<Context>,
      ) =>
        | RouterReturnValue<Nodes, ExtractStateType<Schema>>
        | Promise<RouterReturnValue<Nodes, ExtractStateType<Schema>>>;

// ---- Compiled graphs and runs ----

/**
 * LangGraph.js's base class of compiled graphs. Interlude has one compiled graph, typed by its
 * state, update, node names, input and nodes' updates; the other parameters are accepted and not used.
 */
export type CompiledGraph<
  N extends string,
  State = any,
  Update = any,
  _ContextType extends Record<string, any> = Record<string, any>,
  InputType = any,
  _OutputType = any,
  NodeReturnType = unknown,
  _CommandType = unknown,
  _StreamCustomType = any,
  _TStreamTransformers extends ReadonlyArray<() => StreamTransformer<any>> = [],
> = CompiledStateGraph<State, Update, N, InputType, NodeReturnType>;

/** A compiled graph named by slots: `CompiledGraphType<{ state: S; update: U; node: N }>`. */
export type CompiledGraphType<Spec extends object = object> = CompiledStateGraph<
  Spec extends { state: infer State } ? State : any,
  Spec extends { update: infer Update } ? Update : any,
  Spec extends { node: infer N extends string } ? N : any
>;

export type GetStateOptions = NonNullable<Parameters<CompiledStateGraph["getState"]>[1]>;

export type SendOptions = NonNullable<ConstructorParameters<typeof Send>[2]>;

export type { OverwriteValue } from "../primitives/overwrite.js";
export type { ExecutionInfo, ServerInfo } from "./runtime.js";
export type { StreamOutputMap } from "./stream-output.js";

type FilterAny<X> = (<T>() => T extends X ? 1 : 2) extends <T>() => T extends any ? 1 : 2 ? never : X;

/** The value type of `typeof interrupt<Value, Answer>`, or of a record of such (the union). */
// The answer is `any`, not LangGraph's `unknown`: Interlude's options are typed by the answer, which would then not match.
export type InferInterruptInputType<T> = T extends typeof interrupt<infer I, any>
  ? I
  : T extends { [key: string]: typeof interrupt<any, any> }
    ? { [K in keyof T]: InferInterruptInputType<T[K]> }[keyof T]
    : unknown;

/** The answer type of `typeof interrupt<Value, Answer>`, or of a record of such (the union, less `any`). */
export type InferInterruptResumeType<T, TInner = false> = T extends typeof interrupt<never, infer R>
  ? TInner extends true
    ? FilterAny<R>
    : R
  : T extends { [key: string]: typeof interrupt<any, any> }
    ? { [K in keyof T]: InferInterruptResumeType<T[K], true> }[keyof T]
    : unknown;

/** The chunk type of a writer function (`(chunk: C) => void`). */
export type InferWriterType<T> = T extends (chunk: infer C) => void ? C : any;

// ---- streamEvents v3: the data of protocol events ----

/** How a graph's run stands in a `lifecycle` event. */
export type AgentStatus = LifecycleEntry["event"];
/** What started a subgraph (a tool call, a Send, an edge), when a transformer knows it. */
export type LifecycleCause = NonNullable<LifecycleEntry["cause"]>;
/** The data of a `lifecycle` event. */
export type LifecycleData = Omit<LifecycleEntry, "namespace" | "timestamp">;

/** Token counts of a model call (`message-finish`), with any provider-specific keys. */
export type UsageInfo = Record<string, any> & {
  input_tokens?: number;
  output_tokens?: number;
  total_tokens?: number;
  input_token_details?: Record<string, any> & { audio?: number; cache_creation?: number; cache_read?: number };
  output_token_details?: Record<string, any> & { audio?: number; reasoning?: number };
};

/** A content block (`{ type: "text", text }`, `{ type: "tool_call", ... }`, ...). */
type ContentBlock = Record<string, any> & { type: string };

/**
 * The data of a `messages` event: a message starts, each of its content blocks starts, streams
 * deltas and finishes, and the message finishes (with its usage) or fails. Interlude leaves out
 * `role` for an AI message, and `id` when the message has none.
 */
export type MessagesEventData = Record<string, any> &
  (
    | { event: "message-start"; role?: "ai" | "human" | "system" | "tool"; id?: string; metadata?: Record<string, any> }
    | { event: "content-block-start"; index: number; content: ContentBlock }
    | { event: "content-block-delta"; index: number; delta: ContentBlock }
    | { event: "content-block-finish"; index: number; content: ContentBlock }
    | { event: "message-finish"; usage?: UsageInfo }
    | { event: "error"; message: string; code?: string }
  );

/** The data of a `tools` event (protocol/convert.ts). */
export type ToolsEventData =
  | { event: "tool-started"; tool_call_id: string; tool_name: string; input?: any }
  | { event: "tool-output-delta"; tool_call_id: string; delta: string }
  | { event: "tool-finished"; tool_call_id: string; output: any }
  | { event: "tool-error"; tool_call_id: string; message: string; code?: string };

/** The data of an `updates` event: the node, and the state it wrote. */
export interface UpdatesEventData {
  node?: string;
  values: Record<string, any>;
}

/** How a tool call ended, for a transformer that follows tool calls. */
export type ToolCallStatus = "running" | "finished" | "error";

/** One tool call as a transformer may project it: its name, arguments, and results to come. */
export interface ToolCallStream<TName extends string = string, TInput = unknown, TOutput = unknown> {
  readonly name: TName;
  readonly callId: string;
  readonly input: TInput;
  readonly output: Promise<TOutput>;
  readonly status: Promise<ToolCallStatus>;
  readonly error: Promise<string | undefined>;
}
