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
import type { Row, Statement } from "../store/db.js";
import type { AnswerRecord, PendingInterrupt, RunRecord, ThreadRecord, ThreadStatus } from "../store/records.js";
import { nowOrUntilStored } from "../store/retry-until-stored.js";
import type { StoreTx } from "../store/store.js";
import { syncView } from "../store/views.js";
import { apiInterrupt, askedWhereAsked, interruptsByTask } from "./state.js";
import { checkpointIdOf } from "./values.js";

export interface SyncOptions {
  /** The run that just ended failed with this (null: it did not fail; undefined: keep the thread's error). */
  error?: unknown;
  /** Who made interrupts go away without answering them (a state edit), for `interrupt.resolved`. */
  resolvedBy?: string;
  /** A write to make first, in the round trip of the sync's reads (a finishing run's record); its rows are returned. */
  first?: Statement;
  /** Interrupts the finishing run took the answers to (settled as applied in the same transaction). */
  taken?: readonly string[];
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

/**
 * The thread's newest snapshot, through the graph its record names, with its subgraphs'
 * snapshots in its tasks when asked (undefined: unknown thread or graph not loaded).
 */
export async function readSnapshot(
  ctx: ServerContext,
  threadId: string,
  subgraphs = false,
): Promise<StateSnapshot | undefined> {
  return snapshotThrough(ctx, (await ctx.store.threadGraph(threadId))?.graph_id, threadId, subgraphs);
}

/** As readSnapshot, through the graph `graphId` (for a thread whose record is not made yet: a copy). */
export async function snapshotThrough(
  ctx: ServerContext,
  graphId: string | null | undefined,
  threadId: string,
  subgraphs = false,
): Promise<StateSnapshot | undefined> {
  const graph = graphOf(ctx, graphId);
  if (!graph) return undefined;
  const config = { configurable: { thread_id: threadId } };
  return subgraphs ? await graph.getState(config, { subgraphs }) : await graph.getState(config);
}

/** The questions the thread still asks, each read where it was asked (askedWhereAsked); undefined as readSnapshot. */
export async function stillAsked(ctx: ServerContext, threadId: string): Promise<Set<string> | undefined> {
  const snapshot = await readSnapshot(ctx, threadId, true);
  return snapshot && askedWhereAsked(snapshot);
}

/** How often a sync reads the snapshot again when the thread moved on before it wrote. */
const STALE_READS = 3;

/** Thrown inside a sync's transaction to roll it back: the thread moved on since its snapshot was read. */
const STALE = Symbol("stale snapshot");

/**
 * @param read the thread's snapshot when the caller has just read it. The snapshot is read
 * before the transaction, where the thread's head may move on (a run that started and ended
 * since, a state edit): a sync that finds it moved reads it again, without `options.error`
 * (what the caller saw stopped is no longer where the thread is), rather than write the older
 * state over what that writer synced.
 */
export async function syncThread(
  ctx: ServerContext,
  threadId: string,
  options: SyncOptions = {},
  read?: StateSnapshot,
): Promise<ThreadRecord | undefined> {
  const synced = await syncWith(
    ctx,
    threadId,
    undefined,
    (_snapshot, again) => (again ? { ...options, error: undefined } : options),
    read,
  );
  return synced || undefined;
}

/** Sync options that depend on nothing: the thread's error kept. */
const KEEP_ERROR = () => ({});

/**
 * A sync made in one transaction with the caller's `writes` (a run's end, a queued run dropped),
 * which come before it and before the head is checked: `writes` answering false (nothing to do:
 * the run moved elsewhere) commits nothing more, and the sync returns false. `optionsFor` gives
 * the sync's options for the snapshot read (`again`: read again after the head moved). Rolled
 * back whole, and tried again with the snapshot read again, when the head moved since the read
 * (`read`, when the caller has just read it).
 */
export async function syncWith(
  ctx: ServerContext,
  threadId: string,
  writes: ((tx: StoreTx) => Promise<boolean>) | undefined,
  optionsFor: (snapshot: StateSnapshot | undefined, again: boolean) => SyncOptions | Promise<SyncOptions> = KEEP_ERROR,
  read?: StateSnapshot,
): Promise<ThreadRecord | undefined | false> {
  let snapshot = read ?? (await readSnapshot(ctx, threadId));
  for (let reads = 1; ; reads++) {
    const options = await optionsFor(snapshot, reads > 1);
    const announcements: Announcements = { events: [], deadlines: [] };
    const seen = snapshot;
    try {
      const synced = await ctx.store.tx(async (tx) => {
        if (writes && !(await writes(tx))) return false;
        if (seen && reads < STALE_READS && (await headIn(ctx, tx, threadId)) !== checkpointIdOf(seen)) throw STALE;
        const { thread } = await syncThreadIn(tx, threadId, seen, options, announcements);
        await announceAtCommit(ctx, tx, announcements);
        return { thread };
      }, threadId);
      if (!synced) return false;
      await announce(ctx, announcements);
      return synced.thread;
    } catch (error) {
      if (error !== STALE) throw error;
    }
    snapshot = await readSnapshot(ctx, threadId);
  }
}

/** The thread's checkpoint head, read in `tx` where the saver shares the store's database, else through the saver (whose writes wait for `tx` on SQLite). */
export async function headIn(ctx: ServerContext, tx: StoreTx, threadId: string): Promise<string | undefined> {
  if (!ctx.headStatement) return ctx.saver.getHeadId(threadId);
  const [rows] = await tx.db.reads([ctx.headStatement(threadId)]);
  return (rows?.[0]?.head_id as string | null | undefined) ?? undefined;
}

/**
 * `syncThread` after a change already saved in the thread's checkpoints (a state edit): a sync
 * that fails is retried until stored, in the background, rather than failing the request
 * whose client would then make the change a second time.
 */
export function syncAfterSaved(ctx: ServerContext, threadId: string, options: SyncOptions): Promise<void> {
  return nowOrUntilStored(
    `thread ${threadId} changed, its record not in line yet`,
    async () => void (await syncThread(ctx, threadId, options)),
  );
}

/**
 * The writes of a sync, through `tx` (a transaction holding the thread's lock); what to
 * announce is added to `out`. Returns the thread as saved and its active runs (as read).
 */
export async function syncThreadIn(
  tx: StoreTx,
  threadId: string,
  snapshot: StateSnapshot | undefined,
  options: SyncOptions,
  out: Announcements,
): Promise<{ thread: ThreadRecord | undefined; active: RunRecord[]; first: Row[] }> {
  // With a snapshot, the stored values are replaced without being read.
  const view = await syncView(tx.db, threadId, {
    values: snapshot === undefined,
    asked: snapshot?.interrupts.map((i) => i.id) ?? [],
    first: options.first,
  });
  const { thread, active, first } = view;
  if (!thread) return { thread: undefined, active, first };
  // A finishing run whose record did not move was taken for lost by another process, which
  // revoked its claim (its last writes, sent in this transaction, were refused) and synced the
  // thread from the checkpoints: what this run saw last is not what they hold.
  if (options.first !== undefined && first.length === 0) return { thread, active, first };
  // A finishing run's record (`first`) came before the reads: it no longer counts.
  const busy = active.length > 0;
  const error = options.error === undefined ? thread.error : options.error;
  const status = statusOf(snapshot, busy, error);
  const now = new Date().toISOString();
  const next: ThreadRecord = {
    ...thread,
    status,
    error: error ?? null,
    values: snapshot ? snapshot.values : thread.values,
    values_checkpoint_id: snapshot ? checkpointIdOf(snapshot) : thread.values_checkpoint_id,
    interrupts: snapshot
      ? interruptsByTask(snapshot, status === "error" ? held(view.answers, options.taken) : undefined)
      : {},
    updated_at: now,
    state_updated_at: snapshot?.createdAt ?? thread.state_updated_at,
  };
  // Only the state read from the snapshot is written: without one the stored values stay.
  await tx.saveThreadSync(next, { values: snapshot !== undefined });
  await syncPending(tx, next, snapshot, view, now, out, options.resolvedBy);
  return { thread: next, active, first };
}

/**
 * The answered questions of a thread stopped by a failure, which it no longer shows: a failure
 * after a subgraph took an answer and before its parent's step leaves the question in the
 * parent's checkpoint, and a client reading it there would answer it again (409) for good
 * instead of continuing the thread (API.md, "Storage failures").
 */
function held(answers: ReadonlyMap<string, AnswerRecord>, taken: readonly string[] = []): Set<string> {
  const out = new Set(taken);
  for (const [id, answer] of answers) if (answer.state === "applied") out.add(id);
  return out;
}

/**
 * Inside the sync's transaction: on PostgreSQL its events go out with its commit (no round
 * trip of their own), and its deadlines' jobs are inserted in it (a process dying just after
 * the commit leaves no question whose deadline nobody will check); elsewhere they stay in `out`
 * for `announce`, after the commit.
 */
export function announceAtCommit(ctx: ServerContext, tx: StoreTx, out: Announcements): Promise<void> {
  const deadlines = ctx.dispatcher.scheduleDeadlineIn !== undefined && out.deadlines.length > 0;
  if (!deadlines && (!ctx.bus.publishIn || !out.events.length)) return NOTHING_TO_ANNOUNCE;
  return announceIn(ctx, tx, out);
}

async function announceIn(ctx: ServerContext, tx: StoreTx, out: Announcements): Promise<void> {
  const { dispatcher, bus } = ctx;
  if (dispatcher.scheduleDeadlineIn)
    for (const d of out.deadlines.splice(0))
      await dispatcher.scheduleDeadlineIn(tx.db, d.threadId, d.interruptId, d.at);
  if (bus.publishIn && out.events.length) await bus.publishIn(tx.db, out.events.splice(0));
}

/**
 * After the commit: what did not go with it. Most often everything did (announceAtCommit), and
 * this makes no promise of its own (each one pays AsyncLocalStorage's hooks).
 */
export function announce(ctx: ServerContext, out: Announcements): Promise<void> {
  if (!out.events.length && !out.deadlines.length) return NOTHING_TO_ANNOUNCE;
  return publishAndSchedule(ctx, out);
}

const NOTHING_TO_ANNOUNCE: Promise<void> = Promise.resolve();

async function publishAndSchedule(ctx: ServerContext, out: Announcements): Promise<void> {
  // Published together: the bus sends the events of one turn in one statement, in order.
  await Promise.all(out.events.map((event) => ctx.bus.publish(event)));
  for (const d of out.deadlines) await ctx.dispatcher.scheduleDeadline?.(d.threadId, d.interruptId, d.at);
}

async function syncPending(
  tx: StoreTx,
  thread: ThreadRecord,
  snapshot: StateSnapshot | undefined,
  read: { pending: readonly PendingInterrupt[]; answers: ReadonlyMap<string, AnswerRecord> },
  now: string,
  out: Announcements,
  resolvedBy: string | undefined,
): Promise<void> {
  const current = new Map((snapshot?.interrupts ?? []).map((i) => [i.id, i]));
  // A thread whose run failed is not waiting for anyone, even if its last checkpoint still shows a question.
  if (thread.status === "error") current.clear();
  // Read under the thread's lock, so the deletes and inserts below change exactly these rows.
  const listed = read.pending;
  const known = new Set(listed.map((p) => p.interrupt_id));
  const removed = listed.filter((row) => !current.has(row.interrupt_id));
  const added: PendingInterrupt[] = [];
  for (const row of removed) {
    const answer = read.answers.get(row.interrupt_id);
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
    added.push(row);
    out.events.push({ type: "interrupt.created", ...row });
    if (row.deadline_at)
      out.deadlines.push({ threadId: row.thread_id, interruptId: id, at: new Date(row.deadline_at) });
  }
  await tx.replacePending(thread.thread_id, removed, added);
  // Asked anew (a replay or a fork): the answer it had no longer counts.
  for (const row of added)
    if (read.answers.get(row.interrupt_id)?.state === "applied") await tx.clearAnswer(row.thread_id, row.interrupt_id);
}
