/**
 * Checkpoints moved as a whole: `POST /threads/:id/copy` (a new thread with the same
 * checkpoints of every namespace and their pending writes), and a rolled-back run's thread put
 * back as it was when the run started.
 */
import {
  type BaseCheckpointSaver,
  type ChannelVersions,
  type CheckpointTuple,
  readingLangChain,
} from "@interlude/core";
import { untilStored } from "../store/retry-until-stored.js";

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

/** A saver that drops a thread's later checkpoints in one transaction (every saver of this project: SaverKit). */
interface Rewinding {
  rewindThread(threadId: string, checkpointId: string): Promise<number>;
}

/**
 * Drops every checkpoint saved after `startedAt` (null: the thread had none), in every
 * namespace. Pending writes the run added to the checkpoint it started from stay (a run rolled
 * back while still in its first step keeps what that step saved). Tried again until storage
 * takes it: a rollback that began is finished, not left for a failure to undo.
 *
 * The savers of this project do it in one transaction (`rewindThread`). Another saver has its
 * thread deleted and its kept checkpoints put back, from the checkpoints read before: a process
 * that dies in between leaves that thread with part of its history.
 */
export async function restoreCheckpoints(
  saver: BaseCheckpointSaver,
  threadId: string,
  startedAt: string | null,
): Promise<void> {
  if (startedAt === null) return untilStored(() => saver.deleteThread(threadId));
  const rewinding = saver as BaseCheckpointSaver & Partial<Rewinding>;
  if (typeof rewinding.rewindThread === "function")
    return untilStored(async () => void (await rewinding.rewindThread!(threadId, startedAt)));
  const tuples = await tuplesOf(saver, threadId);
  const keep = tuples.filter((t) => t.checkpoint.id <= startedAt);
  if (keep.length === tuples.length) return;
  await untilStored(async () => {
    await saver.deleteThread(threadId);
    await putAll(saver, threadId, keep);
  });
}
