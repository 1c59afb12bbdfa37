/** Reading a thread's checkpoint where a run or an update starts. */
import type { BaseCheckpointSaver } from "../checkpoint/base.js";
import { readingLangChain } from "../checkpoint/serde-langchain.js";
import type { CheckpointTuple } from "../checkpoint/types.js";
import { CheckpointNotFoundError } from "../errors/graph.js";

/**
 * The thread's newest checkpoint (its head, which a save must replace) and the one to start
 * from: `wanted`, or the newest when none is asked for. An asked-for checkpoint that does not
 * exist is an error, never a silent start from the newest.
 */
export function loadStart(
  saver: BaseCheckpointSaver,
  threadId: string,
  ns: string,
  wanted: string | undefined,
  /** The caller's own configurable keys (`callerKeys`). */
  keys?: Record<string, unknown>,
): Promise<{ latest?: CheckpointTuple; tuple?: CheckpointTuple }> {
  const base = keys ? { ...keys, thread_id: threadId, checkpoint_ns: ns } : { thread_id: threadId, checkpoint_ns: ns };
  const reading = readingLangChain(() => saver.getTuple({ configurable: base }));
  // Not an async function: a run's start waits on one promise, not three.
  if (!wanted) return reading.then((latest) => ({ latest, tuple: latest }));
  return reading.then(async (latest) => {
    const tuple = await readingLangChain(() => saver.getTuple({ configurable: { ...base, checkpoint_id: wanted } }));
    if (!tuple) throw new CheckpointNotFoundError(threadId, wanted);
    return { latest, tuple };
  });
}
