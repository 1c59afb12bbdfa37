/**
 * After anything changes a thread (a run ends, its state is edited, a deadline fires), its
 * record is brought in line with its newest checkpoint: status, values, pending interrupts.
 * The inbox table follows, and each interrupt that appears or goes away is announced once.
 *
 * The snapshot is read first; the records are written in one transaction (`syncThreadIn`,
 * which a caller may run inside its own), and announced only once that has committed, so
 * whoever hears of an interrupt finds it in the store.
 */
import type { StateSnapshot } from "@interlude/core";
import { graphOf, type ServerContext } from "../context.js";
import type { BusEvent } from "../events/bus.js";
import { deadlineOf } from "../inbox/deadline-spec.js";
import type { PendingInterrupt, RunRecord, ThreadRecord, ThreadStatus } from "../store/records.js";
import type { StoreTx } from "../store/store.js";
import { apiInterrupt, interruptsByTask } from "./state.js";

export interface SyncOptions {
  /** The run that just ended failed with this (null: it did not fail; undefined: keep the thread's error). */
  error?: unknown;
  /** A run that is finishing: it no longer makes the thread busy. */
  finishing?: string;
  /** Who made interrupts go away without answering them (a state edit), for `interrupt.resolved`. */
  resolvedBy?: string;
  /** The thread's pending and running runs, when the caller has just read them in the same transaction. */
  active?: readonly RunRecord[];
}

/** What to tell others once the sync has committed. */
export interface Announcements {
  events: BusEvent[];
  deadlines: Array<{ threadId: string; interruptId: string; at: Date }>;
}

function statusOf(snapshot: StateSnapshot | undefined, busy: boolean, error: unknown): ThreadStatus {
  if (busy) return "busy";
  if (error !== null && error !== undefined) return "error";
  return snapshot && snapshot.next.length > 0 ? "interrupted" : "idle";
}

/** The thread's newest snapshot, through its graph (undefined: unknown thread or graph not loaded). */
export async function readSnapshot(ctx: ServerContext, threadId: string): Promise<StateSnapshot | undefined> {
  const graph = graphOf(ctx, (await ctx.store.threadGraph(threadId))?.graph_id);
  return graph ? await graph.getState({ configurable: { thread_id: threadId } }) : undefined;
}

/** @param read the thread's snapshot when the caller has just read it */
export async function syncThread(
  ctx: ServerContext,
  threadId: string,
  options: SyncOptions = {},
  read?: StateSnapshot,
): Promise<ThreadRecord | undefined> {
  const snapshot = read ?? (await readSnapshot(ctx, threadId));
  const announcements: Announcements = { events: [], deadlines: [] };
  const thread = await ctx.store.tx((tx) => syncThreadIn(tx, threadId, snapshot, options, announcements), threadId);
  await announce(ctx, announcements);
  return thread;
}

/** The writes of a sync, through `tx` (a transaction); what to announce is added to `out`. */
export async function syncThreadIn(
  tx: StoreTx,
  threadId: string,
  snapshot: StateSnapshot | undefined,
  options: SyncOptions,
  out: Announcements,
): Promise<ThreadRecord | undefined> {
  // With a snapshot, the stored values are replaced without being read.
  const thread = await tx.getThread(threadId, { values: snapshot === undefined });
  if (!thread) return undefined;
  const active = options.active ?? (await tx.activeRuns(threadId));
  const busy = active.some((r) => r.run_id !== options.finishing);
  const error = options.error === undefined ? thread.error : options.error;
  const now = new Date().toISOString();
  const next: ThreadRecord = {
    ...thread,
    status: statusOf(snapshot, busy, error),
    error: error ?? null,
    values: snapshot ? snapshot.values : thread.values,
    interrupts: snapshot ? interruptsByTask(snapshot) : {},
    updated_at: now,
    state_updated_at: snapshot?.createdAt ?? thread.state_updated_at,
  };
  await tx.saveThread(next);
  await syncPending(tx, next, snapshot, now, out, options.resolvedBy);
  return next;
}

export async function announce(ctx: ServerContext, out: Announcements): Promise<void> {
  for (const event of out.events) await ctx.bus.publish(event);
  for (const d of out.deadlines) await ctx.dispatcher.scheduleDeadline(d.threadId, d.interruptId, d.at);
}

async function syncPending(
  tx: StoreTx,
  thread: ThreadRecord,
  snapshot: StateSnapshot | undefined,
  now: string,
  out: Announcements,
  resolvedBy: string | undefined,
): Promise<void> {
  const current = new Map((snapshot?.interrupts ?? []).map((i) => [i.id, i]));
  // A thread whose run failed is not waiting for anyone, even if its last checkpoint still shows a question.
  if (thread.status === "error") current.clear();
  const listed = await tx.pendingOf(thread.thread_id);
  const known = new Set(listed.map((p) => p.interrupt_id));
  for (const row of listed) {
    if (current.has(row.interrupt_id)) continue;
    if (!(await tx.deletePending(thread.thread_id, row.interrupt_id))) continue;
    const answer = await tx.answer(thread.thread_id, row.interrupt_id);
    out.events.push({
      type: "interrupt.resolved",
      thread_id: thread.thread_id,
      interrupt_id: row.interrupt_id,
      by: answer?.by ?? resolvedBy ?? null,
      answer: answer?.answer ?? null,
      at: answer?.at ?? now,
    });
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
    if (!(await tx.insertPending(row))) continue;
    await tx.clearAnswer(row.thread_id, id);
    out.events.push({ type: "interrupt.created", ...row });
    if (row.deadline_at)
      out.deadlines.push({ threadId: row.thread_id, interruptId: id, at: new Date(row.deadline_at) });
  }
}
