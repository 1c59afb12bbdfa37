/**
 * Interlude: a LangGraph-compatible graph runtime that pauses for humans, persists every
 * step, and resumes anywhere. Public names match `@langchain/langgraph`.
 */

export {
  BaseCache,
  type CacheFullKey,
  type CacheNamespace,
  type CachePolicy,
} from "./cache/base.js";
export { InMemoryCache } from "./cache/memory.js";
export {
  GraphCallbackHandler,
  type GraphInterruptEvent,
  type GraphLifecycleEvent,
  type GraphLifecycleStatus,
  type GraphResumeEvent,
} from "./callbacks/graph-lifecycle.js";
export type { EventFilters, StreamEvent } from "./callbacks/stream-events.js";
export type { ToolEvent } from "./callbacks/tool-event.js";
export * from "./channels/index.js";
export * from "./checkpoint/index.js";
export { readingLangChain } from "./checkpoint/serde-langchain.js";
export * from "./constants.js";
export * from "./errors/index.js";
export {
  Annotation,
  AnnotationRoot,
  type ChannelSpec,
  type StateSpec,
  type StateType,
  type UpdateType,
} from "./graph/annotation.js";
export {
  CompiledStateGraph,
  type CompileOptions,
  type InvokeResult,
  type NodeHandle,
  type RunConfig,
  type StreamConfig,
} from "./graph/compiled.js";
export type { AddNodeOptions, NodeErrorHandler, NodePolicyOptions } from "./graph/declaration.js";
export type { DrawingOptions, DrawnEdge, DrawnNode, GraphDrawing } from "./graph/drawing.js";
export {
  Entrypoint,
  type EntrypointFinal,
  type EntrypointOptions,
  entrypoint,
  getPreviousState,
} from "./graph/entrypoint.js";
export { Graph } from "./graph/graph.js";
export { MessageGraph } from "./graph/message-graph.js";
export type { RunnableLike } from "./graph/runnable.js";
export {
  getConfig,
  getCurrentTaskInput,
  getStore,
  getWriter,
  type LangGraphRunnableConfig,
  type Runtime,
  writer,
} from "./graph/runtime.js";
export {
  defaultOf as getSchemaDefaultGetter,
  registry,
  type SchemaMeta,
  withLangGraph,
} from "./graph/schema-meta.js";
export type { NodeAction, StateDefinitionInit, StateGraphInit } from "./graph/state-graph.js";

import type { START } from "./constants.js";
import type { StateSpec, StateType } from "./graph/annotation.js";
import { StateGraph as StateGraphClass, type StateGraphConstructor } from "./graph/state-graph.js";
/** The graph builder (graph/state-graph.ts), typed so that `new StateGraph(zodObject)` types its state. */
export const StateGraph = StateGraphClass as StateGraphConstructor;
export type StateGraph<
  S extends StateSpec = StateSpec,
  N extends string = typeof START,
  O = StateType<S>,
> = StateGraphClass<S, N, O>;
// LangGraph.js's type helpers, stated over Interlude's types (graph/langgraph-types.ts).
export type {
  AgentStatus,
  AnyStateSchema,
  BinaryOperator,
  CompiledGraph,
  CompiledGraphType,
  ConditionalEdgeRouter,
  ConditionalEdgeRouterTypes,
  ContextSchemaInit,
  ExecutionInfo,
  ExtractStateType,
  ExtractUpdateType,
  GetStateOptions,
  GraphNode,
  GraphNodeReturnValue,
  GraphNodeTypes,
  InferInterruptInputType,
  InferInterruptResumeType,
  InferStateSchemaUpdate,
  InferStateSchemaValue,
  InferWriterType,
  LifecycleCause,
  LifecycleData,
  MessagesEventData,
  NodeType,
  OverwriteValue,
  SendOptions,
  ServerInfo,
  SingleReducer,
  StateDefinition,
  StateGraphAddNodeOptions,
  StateGraphArgsWithInputOutputSchemas,
  StateGraphArgsWithStateSchema,
  StateGraphNodeSpec,
  StateGraphOptions,
  StateSchemaField,
  StateSchemaFields,
  StateSchemaFieldsToStateDefinition,
  StateSchemaFieldToChannel,
  StreamOutputMap,
  ToolCallStatus,
  ToolCallStream,
  ToolsEventData,
  ToStateDefinition,
  UpdatesEventData,
  UsageInfo,
} from "./graph/langgraph-types.js";
export {
  DeltaValue,
  type DeltaValueInit,
  MessagesDeltaValue,
  MessagesValue,
  ReducedValue,
  type ReducedValueInit,
  StateSchema,
  UntrackedValue,
} from "./graph/state-schema.js";
export { type InterruptOptions, interrupt } from "./interrupt/interrupt.js";
export { isResumeMap } from "./interrupt/match.js";
export type { Interrupt } from "./interrupt/record.js";
export {
  GraphBubbleUp,
  GraphDrained,
  GraphInterrupt,
  isGraphBubbleUp,
  isGraphDrained,
  isGraphInterrupt,
  isInterrupted,
  isParentCommand,
  NodeInterrupt,
  ParentCommand,
} from "./interrupt/signal.js";
export {
  getJsonSchemaFromSchema,
  isSerializableSchema,
  isStandardSchema,
  type StandardSchemaV1,
} from "./interrupt/standard-schema.js";
export { type TaskFunction, type TaskOptions, task } from "./interrupt/task.js";
export { LangChainMissingError, LangChainNotReadyError, loadLangChain } from "./langchain/load.js";
export { ChatModelStreamImpl } from "./langchain/model-stream.js";
export { MessagesAnnotation } from "./messages/annotation.js";
export { MessageIdRequiredError, type PushMessageOptions, pushMessage } from "./messages/push.js";
export {
  addMessages,
  type Messages,
  messagesDeltaReducer,
  messagesStateReducer,
  REMOVE_ALL_MESSAGES,
  UnknownMessageIdError,
} from "./messages/reducer.js";
export type { BaseMessage, BaseMessageLike, MessageShape, MessageTypes } from "./messages/types.js";
export { MessagesZodMeta } from "./messages/zod-meta.js";
export { COMMAND_SYMBOL, Command, CommandInstance, type CommandParams, isCommand } from "./primitives/command.js";
export { Overwrite } from "./primitives/overwrite.js";
export { RunControl } from "./primitives/run-control.js";
export { isSend, Send } from "./primitives/send.js";
export { type EventStreamOptions, StreamChannel, StreamChannel as EventLog } from "./protocol/channel.js";
export {
  type CheckpointEnvelope,
  type ConvertToProtocolEventOptions,
  convertToProtocolEvent,
  isCheckpointEnvelope,
  STREAM_EVENTS_V3_MODES,
} from "./protocol/convert.js";
export {
  type CreateGraphRunStreamOptions,
  createGraphRunStream,
  GraphRunStream,
  SubgraphRunStream,
} from "./protocol/run-stream.js";
export type { StreamEventsV3Options } from "./protocol/stream-events.js";
export {
  createLifecycleTransformer,
  filterLifecycleEntries,
  type LifecycleProjection,
  type LifecycleTransformerOptions,
} from "./protocol/transformers/lifecycle.js";
export { createMessagesTransformer } from "./protocol/transformers/messages.js";
export {
  createSubgraphDiscoveryTransformer,
  filterSubgraphHandles,
  type SubgraphDiscoveryProjection,
  type SubgraphDiscoveryTransformerOptions,
} from "./protocol/transformers/subgraphs.js";
export { createValuesTransformer } from "./protocol/transformers/values.js";
export {
  type ChatModelStreamHandle,
  type InferExtensions,
  type InterruptPayload,
  isNativeTransformer,
  type LifecycleEntry,
  type LifecycleStatus,
  type Namespace,
  type NativeStreamTransformer,
  type ProtocolEvent,
  type ProtocolMethod,
  type StreamEmitter,
  type StreamTransformer,
} from "./protocol/types.js";
export { asGraphStream, type GraphStream, type StreamMode } from "./run/emitter.js";
export type { Durability } from "./run/persist.js";
export type { RetryPolicy } from "./runner/retry.js";
export type { TimeoutPolicy } from "./runner/timeout.js";
export * from "./store/index.js";
export type { PregelTaskDescription, StateSnapshot } from "./thread/snapshot.js";
export { copyCheckpoint, emptyCheckpoint } from "./thread/working-checkpoint.js";
