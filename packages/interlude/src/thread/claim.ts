/**
 * One writer per thread: a run (or a state update) claims its thread in the saver before it
 * reads anything, renews the claim while it works, and gives it back when done. A claim held
 * by someone else means `ThreadBusyError`, before any node runs.
 */
import type { BaseCheckpointSaver } from "../checkpoint/base.js";
import { ThreadBusyError } from "../errors/storage.js";
import { isDeadOwner, newClaimOwner } from "./claim-owner.js";

/** How long a claim lasts without renewal unless the run says otherwise (`claimTtlMs`). */
export const DEFAULT_CLAIM_TTL_MS = 30_000;

/** The thread is claimed by someone else: taken over if they are known dead, else ThreadBusyError saying when it lapses. */
async function takeOver(saver: BaseCheckpointSaver, threadId: string, owner: string, ttlMs: number): Promise<void> {
  const holder = await saver.claimHolder(threadId);
  // Released between the two calls: claim it as usual.
  if (!holder) {
    if (await saver.claimThread(threadId, { owner, ttlMs })) return;
  } else if (isDeadOwner(holder.owner) && (await saver.claimThread(threadId, { owner, ttlMs, replaces: holder.owner })))
    return;
  throw new ThreadBusyError(threadId, holder?.expiresAt);
}

export async function withThreadClaim<T>(
  saver: BaseCheckpointSaver,
  threadId: string,
  ttlMs: number,
  work: (owner: string) => Promise<T>,
): Promise<T> {
  const owner = newClaimOwner();
  if (!(await saver.claimThread(threadId, { owner, ttlMs }))) await takeOver(saver, threadId, owner, ttlMs);
  const heartbeat = setInterval(
    () => void saver.claimThread(threadId, { owner, ttlMs }).catch(() => undefined),
    Math.max(ttlMs / 3, 10),
  );
  heartbeat.unref();
  try {
    return await work(owner);
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
