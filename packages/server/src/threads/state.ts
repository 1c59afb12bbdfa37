/** Core snapshots and interrupts in the LangGraph Server API's JSON shapes. */
import { type Interrupt, NS_SEP, type RunnableConfig, type StateSnapshot } from "@interlude/core";
import type { ApiInterrupt } from "../store/records.js";

export function apiInterrupt(i: Interrupt): ApiInterrupt {
  const out: ApiInterrupt = { id: i.id, value: i.value };
  if (i.ns) out.ns = i.ns.split(NS_SEP);
  if (i.key !== undefined) out.key = i.key;
  if (i.responseSchema) out.response_schema = i.responseSchema;
  return out;
}

export interface ApiCheckpoint {
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id: string | null;
  checkpoint_map: Record<string, unknown> | null;
}

export function apiCheckpoint(config: RunnableConfig | undefined, threadId: string): ApiCheckpoint | null {
  const c = config?.configurable;
  if (!c) return null;
  return {
    thread_id: String(c.thread_id ?? threadId),
    checkpoint_ns: String(c.checkpoint_ns ?? ""),
    checkpoint_id: (c.checkpoint_id as string | undefined) ?? null,
    checkpoint_map: null,
  };
}

function isSnapshot(x: unknown): x is StateSnapshot {
  return typeof x === "object" && x !== null && "values" in x && "tasks" in x;
}

export function threadState(s: StateSnapshot, threadId: string): Record<string, unknown> {
  const checkpoint = apiCheckpoint(s.config, threadId);
  const parent = apiCheckpoint(s.parentConfig, threadId);
  return {
    values: s.values,
    next: s.next,
    tasks: s.tasks.map((t) => ({
      id: t.id,
      name: t.name,
      path: t.path,
      error: t.error ? `${t.error.name}: ${t.error.message}` : null,
      interrupts: t.interrupts.map(apiInterrupt),
      checkpoint: t.state && !isSnapshot(t.state) ? apiCheckpoint(t.state, threadId) : null,
      state: t.state && isSnapshot(t.state) ? threadState(t.state, threadId) : null,
      ...(t.result !== undefined ? { result: t.result } : {}),
    })),
    metadata: s.metadata ?? null,
    created_at: s.createdAt ?? null,
    checkpoint,
    parent_checkpoint: parent,
    checkpoint_id: checkpoint?.checkpoint_id ?? null,
    parent_checkpoint_id: parent?.checkpoint_id ?? null,
    interrupts: s.interrupts.map(apiInterrupt),
  };
}

/** The thread's `interrupts` field: task id -> its pending interrupts, but those in `held` (answered). */
export function interruptsByTask(s: StateSnapshot, held?: ReadonlySet<string>): Record<string, ApiInterrupt[]> {
  const out: Record<string, ApiInterrupt[]> = {};
  for (const task of s.tasks) {
    const open = held ? task.interrupts.filter((i) => !held.has(i.id)) : task.interrupts;
    if (open.length) out[task.id] = open.map(apiInterrupt);
  }
  return out;
}

/**
 * The ids of the questions a snapshot read with `{ subgraphs: true }` still asks, each read in
 * the namespace that asked it: a subgraph's question only while the subgraph's own checkpoint
 * asks it. The parent's checkpoint goes on listing it when a failure came between the
 * subgraph's step past the question (its answer taken) and the parent's step.
 */
export function askedWhereAsked(s: StateSnapshot, out = new Set<string>()): Set<string> {
  for (const task of s.tasks) {
    if (isSnapshot(task.state)) askedWhereAsked(task.state, out);
    else for (const i of task.interrupts) out.add(i.id);
  }
  return out;
}
