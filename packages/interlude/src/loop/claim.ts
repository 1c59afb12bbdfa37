/**
 * One writer per thread: a run (or a state update) claims its thread in the saver before it
 * reads anything, renews the claim while it works, and gives it back when done. A claim held
 * by someone else means `ThreadBusyError`, before any node runs.
 */
import { randomUUID } from "node:crypto";
import type { BaseCheckpointSaver } from "../checkpoint/base.js";
import { ThreadBusyError } from "../errors/storage.js";

export async function withThreadClaim<T>(
  saver: BaseCheckpointSaver,
  threadId: string,
  ttlMs: number,
  work: () => Promise<T>,
): Promise<T> {
  const owner = randomUUID();
  if (!(await saver.claimThread(threadId, { owner, ttlMs }))) throw new ThreadBusyError(threadId);
  const heartbeat = setInterval(
    () => void saver.claimThread(threadId, { owner, ttlMs }).catch(() => undefined),
    Math.max(ttlMs / 3, 10),
  );
  heartbeat.unref();
  try {
    return await work();
  } finally {
    clearInterval(heartbeat);
    await release(saver, threadId, owner, Date.now() + ttlMs, 50);
  }
}

/**
 * Gives the claim back. When storage refuses (full, read-only, down), tries again with backoff
 * until the claim would have lapsed anyway, so the thread is free as soon as storage is back.
 */
async function release(
  saver: BaseCheckpointSaver,
  threadId: string,
  owner: string,
  lapsesAt: number,
  delay: number,
): Promise<void> {
  try {
    await saver.releaseThread(threadId, owner);
  } catch {
    if (Date.now() + delay >= lapsesAt) return;
    setTimeout(() => void release(saver, threadId, owner, lapsesAt, Math.min(delay * 2, 2_000)), delay).unref();
  }
}
