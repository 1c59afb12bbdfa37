/**
 * The `config` each node of a run is called with: the caller's config, plus the run's writer
 * (`custom` stream mode), `interrupt`, its AbortSignal, its drain switch (`control`), its store,
 * its recursion limit, the task's namespace, and
 * what LangGraph tells a node about itself (task-metadata.ts).
 */

import type { PreparedTask } from "../algo/tasks.js";
import { shallowCopy } from "../checkpoint/plain-copy.js";
import type { RunnableConfig } from "../checkpoint/types.js";
import type { ServerInfo } from "../graph/runtime.js";
import { interrupt } from "../interrupt/interrupt.js";
import type { RunControl } from "../primitives/run-control.js";
import { type AttemptInfo, executionInfo, taskMetadata } from "./task-metadata.js";

export class NodeConfigs {
  /** What every node config of this run shares; built once (spreading the caller's config per task was ~20% of a step). */
  private base?: { config: Record<string, unknown>; configurable: Record<string, unknown>; metadata: unknown };

  constructor(
    private readonly config: RunnableConfig,
    private readonly threadId: string | undefined,
    private readonly writer: (chunk: unknown) => void,
    private readonly signal: AbortSignal | undefined,
    private readonly control: RunControl,
    private readonly store: unknown,
    private readonly recursionLimit: number,
  ) {}

  /** The config of a task of step `step` (which started from checkpoint `checkpointId`). */
  for(
    task: PreparedTask,
    step: number,
    checkpointId: string,
    attempt: AttemptInfo | undefined,
    nodeMetadata: Record<string, unknown> | undefined,
  ): Record<string, unknown> {
    // Both bases already hold every key (same order as before), so each task's config is two
    // plain clones and a few stores: adding a key to a clone costs ~1 us, a store ~10 ns.
    const base = (this.base ??= this.makeBase());
    const configurable = { ...base.configurable };
    configurable.checkpoint_ns = task.ns;
    const config = { ...base.config };
    config.configurable = configurable;
    config.metadata = taskMetadata(base.metadata, task, step, nodeMetadata);
    config.executionInfo = executionInfo(task, checkpointId, this.threadId, attempt);
    config.runName = task.name;
    return config;
  }

  private makeBase(): NonNullable<NodeConfigs["base"]> {
    // Copied then set key by key (see shallowCopy): the keys in the order a spread gave them.
    const config = shallowCopy(this.config);
    config.configurable = undefined;
    config.writer = this.writer;
    config.interrupt = interrupt;
    // As in LangGraph.js, a node always has a signal (one that never aborts when the run has none),
    // so `config.signal.aborted` and LangChain's listeners need no guard. One per run, not shared:
    // listeners added to it go with the run. It costs ~3 us a run (an AbortController); made
    // lazily per task instead (an accessor), it cost as much, and slowed every task's config.
    config.signal = this.signal ?? new AbortController().signal;
    config.control = this.control;
    config.recursionLimit = this.recursionLimit;
    config.metadata = undefined;
    config.executionInfo = undefined;
    config.runName = undefined;
    config.serverInfo ??= serverInfoOf(this.config);
    const configurable = shallowCopy(this.config.configurable);
    configurable.thread_id = this.threadId;
    configurable.checkpoint_ns = "";
    // LangGraph's node metadata names the integration first (LangSmith files the node's chat model
    // and tool runs under it), then the caller's, and carries the thread, as its graph run's does.
    const metadata: Record<string, unknown> = { ls_integration: "langgraph" };
    Object.assign(metadata, shallowCopy(this.config.metadata as object | undefined));
    if (this.threadId !== undefined) metadata.thread_id = this.threadId;
    return { config: withStore(config, this.store), configurable, metadata };
  }
}

/**
 * What LangGraph Server tells a node of its deployment (`config.serverInfo`), as LangGraph.js
 * builds it: the assistant and graph ids (configurable first, then metadata) and the
 * authenticated user; undefined when none is given.
 */
function serverInfoOf(config: RunnableConfig): ServerInfo | undefined {
  const metadata = (config.metadata ?? {}) as Record<string, unknown>;
  const configurable = (config.configurable ?? {}) as Record<string, unknown>;
  const assistantId = configurable.assistant_id ?? metadata.assistant_id;
  const graphId = configurable.graph_id ?? metadata.graph_id;
  const auth = configurable.langgraph_auth_user;
  const user =
    auth !== null && typeof auth === "object" && "identity" in auth ? (auth as Record<string, any>) : undefined;
  if (assistantId == null && graphId == null && user === undefined) return undefined;
  const info: ServerInfo = {
    assistantId: assistantId == null ? "" : String(assistantId),
    graphId: graphId == null ? "" : String(graphId),
  };
  return user ? { ...info, user } : info;
}

/** `config.store` only for graphs that have one (LangGraph's nodes see no `store` key otherwise). */
function withStore(config: Record<string, unknown>, store: unknown): Record<string, unknown> {
  if (store !== undefined) config.store = store;
  return config;
}
