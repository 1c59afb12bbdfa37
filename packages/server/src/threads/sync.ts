/**
 * After anything changes a thread (a run ends, its state is edited, a deadline fires), its
 * record is brought in line with its newest checkpoint: status, values, pending interrupts.
 * The inbox table follows, and each interrupt that appears or goes away is announced once.
 */
import type { StateSnapshot } from "interlude";
import { graphOf, type ServerContext } from "../context.js";
import { deadlineOf } from "../inbox/deadline-spec.js";
import type { PendingInterrupt, ThreadRecord, ThreadStatus } from "../store/records.js";
import { apiInterrupt, interruptsByTask } from "./state.js";

export interface SyncOptions {
  /** The run that just ended failed with this (null: it did not fail; undefined: keep the thread's error). */
  error?: unknown;
  /** A run that is finishing: it no longer makes the thread busy. */
  finishing?: string;
}

function statusOf(thread: ThreadRecord, snapshot: StateSnapshot | undefined, busy: boolean, error: unknown): ThreadStatus {
  if (busy) return "busy";
  if (error !== null && error !== undefined) return "error";
  return snapshot && snapshot.next.length > 0 ? "interrupted" : "idle";
}

export async function syncThread(ctx: ServerContext, threadId: string, options: SyncOptions = {}): Promise<ThreadRecord | undefined> {
  const thread = await ctx.store.getThread(threadId);
  if (!thread) return undefined;
  const graph = graphOf(ctx, thread.graph_id);
  const snapshot = graph ? await graph.getState({ configurable: { thread_id: threadId } }) : undefined;
  const busy = (await ctx.store.activeRuns(threadId)).some((r) => r.run_id !== options.finishing);
  const error = options.error === undefined ? thread.error : options.error;
  const now = new Date().toISOString();
  const next: ThreadRecord = {
    ...thread,
    status: statusOf(thread, snapshot, busy, error),
    error: error ?? null,
    values: snapshot ? snapshot.values : thread.values,
    interrupts: snapshot ? interruptsByTask(snapshot) : {},
    updated_at: now,
    state_updated_at: snapshot?.createdAt ?? thread.state_updated_at,
  };
  await ctx.store.saveThread(next);
  await syncPending(ctx, next, snapshot, now);
  return next;
}

async function syncPending(ctx: ServerContext, thread: ThreadRecord, snapshot: StateSnapshot | undefined, now: string): Promise<void> {
  const current = new Map((snapshot?.interrupts ?? []).map((i) => [i.id, i]));
  // A thread whose run failed is not waiting for anyone, even if its last checkpoint still shows a question.
  if (thread.status === "error") current.clear();
  const listed = await ctx.store.pendingOf(thread.thread_id);
  const known = new Set(listed.map((p) => p.interrupt_id));
  for (const row of listed) {
    if (current.has(row.interrupt_id)) continue;
    if (!(await ctx.store.deletePending(thread.thread_id, row.interrupt_id))) continue;
    const answer = await ctx.store.answer(thread.thread_id, row.interrupt_id);
    await ctx.bus.publish({ type: "interrupt.resolved", thread_id: thread.thread_id, interrupt_id: row.interrupt_id, by: answer?.by ?? null, answer: answer?.answer ?? null, at: answer?.at ?? now });
  }
  for (const [id, interrupt] of current) {
    if (known.has(id)) continue;
    const api = apiInterrupt(interrupt);
    const deadline = deadlineOf(interrupt.value);
    const row: PendingInterrupt = {
      thread_id: thread.thread_id,
      interrupt_id: id,
      graph_id: thread.graph_id,
      assistant_id: thread.assistant_id,
      value: interrupt.value,
      response_schema: api.response_schema ?? null,
      ns: api.ns ?? [],
      created_at: now,
      deadline_at: deadline ? new Date(Date.parse(now) + deadline.timeout_seconds * 1000).toISOString() : null,
    };
    if (!(await ctx.store.insertPending(row))) continue;
    await ctx.store.clearAnswer(row.thread_id, id);
    await ctx.bus.publish({ type: "interrupt.created", ...row });
    if (row.deadline_at) await ctx.dispatcher.scheduleDeadline(row.thread_id, id, new Date(row.deadline_at));
  }
}
