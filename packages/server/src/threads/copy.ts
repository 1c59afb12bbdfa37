/** `POST /threads/:id/copy`: a new thread with the same checkpoints (every namespace) and pending writes. */
import type { BaseCheckpointSaver, CheckpointTuple } from "@interlude/core";

export async function copyCheckpoints(saver: BaseCheckpointSaver, from: string, to: string): Promise<void> {
  const tuples: CheckpointTuple[] = [];
  for await (const tuple of saver.list({ configurable: { thread_id: from } })) tuples.push(tuple);
  // Oldest first, so every checkpoint's parent exists before it.
  tuples.sort((a, b) => (a.checkpoint.id < b.checkpoint.id ? -1 : a.checkpoint.id > b.checkpoint.id ? 1 : 0));
  for (const tuple of tuples) {
    const ns = String(tuple.config.configurable?.checkpoint_ns ?? "");
    const parent = tuple.parentConfig?.configurable?.checkpoint_id;
    const config = { configurable: { thread_id: to, checkpoint_ns: ns, ...(parent ? { checkpoint_id: parent } : {}) } };
    const saved = await saver.put(config, tuple.checkpoint, tuple.metadata, { ...tuple.checkpoint.channel_versions });
    const byTask = new Map<string, Array<[string, unknown]>>();
    for (const [taskId, channel, value] of tuple.pendingWrites) {
      if (!byTask.has(taskId)) byTask.set(taskId, []);
      byTask.get(taskId)!.push([channel, value]);
    }
    for (const [taskId, writes] of byTask) await saver.putWrites(saved, writes, taskId);
  }
}
