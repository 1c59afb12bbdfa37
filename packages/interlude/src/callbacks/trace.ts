/**
 * LangChain callbacks around a run: when the caller passes `callbacks` (or streams messages,
 * or calls `streamEvents`), the graph is a chain run and each node a child chain run, as in
 * LangGraph, so handlers see nodes start and end and chat models called with the node's
 * config report to the right parent with the node's `langgraph_*` metadata.
 */
import { randomUUID } from "node:crypto";
import type { Callbacks } from "@langchain/core/callbacks/manager";
import { fastId } from "../algo/hash.js";
import type { PreparedTask } from "../algo/tasks.js";
import { NS_END, NS_SEP, PUSH, START } from "../constants.js";
import type { LangChain } from "../langchain/typed.js";
import { taskMetadata } from "../run/task-metadata.js";

type Config = Record<string, unknown>;

/** What LangChain's tracers record as the runnable's identity. */
function serialized(name: string) {
  return { lc: 1, type: "not_implemented" as const, id: ["langgraph", name] };
}

/**
 * A UUIDv7 run id, as LangChain makes by default (time-ordered, for tracers), from node's
 * pooled random UUID: LangChain's generator draws fresh random bytes from the OS for each id,
 * a tenth of a node's callback cost.
 */
function newRunId(): string {
  const random = randomUUID(); // xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx
  const ms = Date.now().toString(16).padStart(12, "0");
  return `${ms.slice(0, 8)}-${ms.slice(8)}-7${random.slice(15)}`;
}

/** LangChain wraps a non-object input or output of a chain as `{ input }` / `{ output }`. */
function asChainValues(value: unknown, key: "input" | "output"): Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : { [key]: value };
}

/** Keys of `configurable` that LangGraph copies into callbacks' metadata. */
const PROPAGATED = ["thread_id", "checkpoint_id", "task_id", "run_id", "assistant_id", "graph_id"];

/** Adds a handler to whatever the caller passed as `callbacks` (an array or a manager). */
export function addHandler(callbacks: unknown, handler: unknown): Callbacks {
  if (callbacks === undefined || callbacks === null) return [handler as never];
  if (Array.isArray(callbacks)) return [...callbacks, handler];
  const manager = (callbacks as { copy(): any }).copy();
  manager.addHandler(handler, true);
  return manager;
}

export interface ChainRun {
  /** The id handlers were told in `handleChainStart`. */
  runId: string;
  /** The config for what runs inside: its callbacks are this run's children. */
  config: Config;
  /** Runs `body` with `config` as LangChain's ambient config: a model called without one still reports here. */
  within<T>(body: () => T): T;
  end(output: unknown): Promise<void>;
  fail(error: unknown): Promise<void>;
  /** A run inside this one (a conditional edge's function, as LangGraph runs it: a `RunnableLambda`). */
  child(name: string, input: unknown): Promise<ChainRun>;
}

async function startChain(
  lc: LangChain,
  config: Config,
  name: string,
  input: unknown,
  metadata: Record<string, unknown>,
  tags: string[],
  runId?: string,
  tracerMetadata?: Record<string, unknown>,
): Promise<ChainRun> {
  const manager = lc.CallbackManager.configure(
    config.callbacks as Callbacks,
    undefined,
    config.tags as string[] | undefined,
    tags,
    metadata,
    undefined,
    tracerMetadata && { tracerInheritableMetadata: tracerMetadata },
  );
  const id = runId ?? newRunId();
  const run = await manager?.handleChainStart(
    serialized(name),
    asChainValues(input, "input"),
    id,
    undefined,
    undefined,
    undefined,
    name,
  );
  const inner: Config = { ...config, metadata, callbacks: run?.getChild() };
  delete inner.runId;
  delete inner.runName;
  return {
    runId: id,
    config: inner,
    within: (body) => lc.runWithConfig(inner, body),
    end: async (output) => {
      await run?.handleChainEnd(asChainValues(output, "output"));
    },
    fail: async (error) => {
      await run?.handleChainError(error);
    },
    child: (childName, childInput) => startChain(lc, inner, childName, childInput, metadata, []),
  };
}

/** The chain run of a whole graph (the outermost run only: a subgraph is inside its node's run). */
export function startGraphChain(lc: LangChain, config: Config, graphName: string, input: unknown): Promise<ChainRun> {
  const configurable = (config.configurable ?? {}) as Record<string, unknown>;
  const metadata: Record<string, unknown> = { ls_integration: "langgraph", ...(config.metadata as object) };
  for (const key of PROPAGATED)
    if (!(key in metadata) && configurable[key] !== undefined) metadata[key] = configurable[key];
  const name = (config.runName as string | undefined) ?? graphName;
  return startChain(lc, config, name, input, metadata, [], config.runId as string | undefined, tracerMetadata(config));
}

/** Parts of a key whose value never goes to a tracer. */
const SECRET_LIKE = ["key", "token", "secret", "password", "auth"];

/**
 * What LangGraph.js gives LangSmith tracers (only them) of a run's `configurable`, in every run's
 * metadata: its plain values, not private (`__`), nested or secret-like ones, and not those the
 * run's `context` repeats (told as undefined, so a tracer does not keep an older value).
 */
function tracerMetadata(config: Config): Record<string, unknown> | undefined {
  const configurable = config.configurable as Record<string, unknown> | undefined;
  if (!configurable) return undefined;
  const context = config.context as Record<string, unknown> | undefined;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(configurable)) {
    if (context != null && Object.hasOwn(context, key) && Object.is(context[key], value)) {
      if (!key.startsWith("__")) out[key] = undefined;
      continue;
    }
    if (key.startsWith("__") || !["string", "number", "boolean"].includes(typeof value)) continue;
    const lower = key.toLowerCase();
    if (SECRET_LIKE.some((part) => lower.includes(part))) continue;
    out[key] = value;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** The chain run of one task, with the metadata LangGraph gives a node's callbacks. */
export function startNodeChain(lc: LangChain, config: Config, task: PreparedTask, step: number): Promise<ChainRun> {
  const metadata = taskMetadata(config.metadata, task, step);
  // The input "node" is bookkeeping: tracers hide it, as they do in LangGraph.
  const tags = task.name === START ? [`graph:step:${step}`, "langsmith:hidden"] : [`graph:step:${step}`];
  return startChain(lc, config, task.name, task.input, metadata, tags);
}

/**
 * The chain run of a `task()` call inside a node (functional API), named and namespaced as
 * LangGraph names the task it makes of the call, so its tokens carry the task's name.
 */
export function startCallChain(
  lc: LangChain,
  config: Config,
  task: PreparedTask,
  step: number,
  name: string,
  index: number,
  input: unknown,
): Promise<ChainRun> {
  const ns = `${task.ns}${NS_SEP}${name}${NS_END}${fastId(`${task.id}|call|${index}|${name}`)}`;
  const metadata = {
    ...(config.metadata as object),
    langgraph_step: step,
    langgraph_node: name,
    langgraph_triggers: [PUSH],
    // A call's path ends in `true`: readers know its namespace has one more segment than its graph's.
    langgraph_path: [PUSH, task.path, index, true],
    langgraph_checkpoint_ns: ns,
    checkpoint_ns: ns,
  };
  return startChain(lc, config, name, input, metadata, [`graph:step:${step}`]);
}
