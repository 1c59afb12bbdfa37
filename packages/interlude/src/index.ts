/**
 * Interlude: a LangGraph-compatible graph runtime that pauses for humans, persists every
 * step, and resumes anywhere. Public names match `@langchain/langgraph`.
 */
export * from "./constants.js";
export * from "./errors/index.js";
export * from "./checkpoint/index.js";
export * from "./channels/index.js";
export { Annotation, AnnotationRoot, type StateType, type UpdateType, type ChannelSpec, type StateSpec } from "./graph/annotation.js";
export { StateGraph, type AddNodeOptions, type NodeAction } from "./graph/state-graph.js";
export { CompiledStateGraph, type CompileOptions, type RunConfig, type StreamConfig, type InvokeResult, type GraphDrawing } from "./graph/compiled.js";
export { Command, isCommand, type CommandParams } from "./primitives/command.js";
export { Send, isSend } from "./primitives/send.js";
export type { Interrupt } from "./primitives/interrupt-record.js";
export { isResumeMap } from "./algo/resume.js";
export { interrupt, type InterruptOptions } from "./interrupt/interrupt.js";
export { isInterrupted, GraphInterrupt, isGraphInterrupt } from "./interrupt/signal.js";
export { task, type TaskOptions, type TaskFunction } from "./interrupt/task.js";
export type { StandardSchemaV1 } from "./interrupt/standard-schema.js";
export type { RetryPolicy } from "./runner/retry.js";
export type { StateSnapshot, PregelTaskDescription } from "./loop/snapshot.js";
export type { StreamMode } from "./loop/emitter.js";
export type { Durability } from "./loop/graph-internals.js";
export { entrypoint, Entrypoint, type EntrypointOptions } from "./graph/entrypoint.js";
