/**
 * Checkpoints moved as a whole: `POST /threads/:id/copy` (a new thread with the same
 * checkpoints of every namespace and their pending writes), and a rolled-back run's thread put
 * back as it was when the run started.
 */
import { randomUUID } from "node:crypto";
import {
  type BaseCheckpointSaver,
  type ChannelVersions,
  type CheckpointTuple,
  readingLangChain,
} from "@interlude/core";
import type { SaverKit } from "@interlude/core/saver-kit";
import type { ServerContext } from "../context.js";
import type { RunRecord, ThreadRecord } from "../store/records.js";
import { untilStored } from "../store/retry-until-stored.js";
import { insertThreadIn, newThread } from "./new-thread.js";
import { snapshotThrough, syncWith } from "./sync.js";

async function tuplesOf(saver: BaseCheckpointSaver, threadId: string): Promise<CheckpointTuple[]> {
  // A thread holding messages, read before this process loaded @langchain/core: load it and read again.
  const tuples = await readingLangChain(async () => {
    const read: CheckpointTuple[] = [];
    for await (const tuple of saver.list({ configurable: { thread_id: threadId } })) read.push(tuple);
    return read;
  });
  // Oldest first (checkpoint ids grow with time), so every checkpoint's parent exists before it.
  return tuples.sort((a, b) => (a.checkpoint.id < b.checkpoint.id ? -1 : a.checkpoint.id > b.checkpoint.id ? 1 : 0));
}

async function putAll(saver: BaseCheckpointSaver, to: string, tuples: readonly CheckpointTuple[]): Promise<void> {
  const put = new Map<string, CheckpointTuple>();
  for (const tuple of tuples) {
    const ns = String(tuple.config.configurable?.checkpoint_ns ?? "");
    const parent = tuple.parentConfig?.configurable?.checkpoint_id;
    const config = { configurable: { thread_id: to, checkpoint_ns: ns, ...(parent ? { checkpoint_id: parent } : {}) } };
    const saved = await saver.put(
      config,
      tuple.checkpoint,
      tuple.metadata,
      newVersions(tuple, put.get(`${ns}\0${parent}`)),
    );
    put.set(`${ns}\0${tuple.checkpoint.id}`, tuple);
    const byTask = new Map<string, Array<[string, unknown]>>();
    for (const [taskId, channel, value] of tuple.pendingWrites) {
      if (!byTask.has(taskId)) byTask.set(taskId, []);
      byTask.get(taskId)!.push([channel, value]);
    }
    for (const [taskId, writes] of byTask) await saver.putWrites(saved, writes, taskId);
  }
}

/**
 * The channels a checkpoint changed since its parent (all of them without one), as the step that
 * saved it gave them: put with the rest, a list would be stored again whole at every checkpoint
 * instead of as the items appended (checkpoint/delta.ts).
 */
function newVersions(tuple: CheckpointTuple, parent: CheckpointTuple | undefined): ChannelVersions {
  const versions = tuple.checkpoint.channel_versions;
  if (!parent) return { ...versions };
  const before = parent.checkpoint.channel_versions;
  return Object.fromEntries(Object.entries(versions).filter(([channel, version]) => before[channel] !== version));
}

export async function copyCheckpoints(saver: BaseCheckpointSaver, from: string, to: string): Promise<void> {
  await putAll(saver, to, await tuplesOf(saver, from));
}

/**
 * A new thread with the source's checkpoints (`POST /threads/:id/copy`). They are copied first,
 * under an id no one knows yet, and the thread's record is made with its sync in one
 * transaction: a copy that failed part way is never found (a client's retry makes the one copy),
 * and its checkpoints are deleted, or if storage is away left where no thread leads to them.
 */
export async function copyThread(ctx: ServerContext, source: ThreadRecord): Promise<ThreadRecord> {
  const copy: ThreadRecord = {
    ...newThread(randomUUID(), { ...source.metadata }),
    graph_id: source.graph_id,
    assistant_id: source.assistant_id,
    config: source.config,
  };
  try {
    await copyCheckpoints(ctx.saver, source.thread_id, copy.thread_id);
    const read = await snapshotThrough(ctx, copy.graph_id, copy.thread_id);
    const made = await syncWith(
      ctx,
      copy.thread_id,
      (tx) => insertThreadIn(tx, copy, ctx.threadTtl.default, ctx.now()),
      () => ({ error: source.error ?? null }),
      read,
    );
    return made as ThreadRecord;
  } catch (error) {
    await ctx.saver.deleteThread(copy.thread_id).catch(() => undefined);
    throw error;
  }
}

/**
 * A rolled-back run's thread put back as it was when the run first started: every checkpoint
 * saved since goes, in every namespace, in one transaction (`rewindThread`, from the mark taken
 * then: a subgraph paused at the question the run answered keeps the checkpoints it saved before;
 * a run recorded before marks existed, from its first checkpoint; the thread had none: all go).
 * Pending writes the run added to the checkpoint it started from stay (a run rolled back while
 * still in its first step keeps what that step saved). Nothing to undo for a run that never
 * started. Tried again until storage takes it: a rollback that began is finished, not left for a
 * failure to undo.
 */
export function undoRunSteps(saver: SaverKit, run: RunRecord): Promise<void> {
  const { started_at_checkpoint: startedAt, started_mark: mark } = run.kwargs;
  if (startedAt === undefined) return Promise.resolve();
  if (startedAt === null) return untilStored(() => saver.deleteThread(run.thread_id));
  return untilStored(async () => void (await saver.rewindThread(run.thread_id, mark ?? startedAt)));
}
