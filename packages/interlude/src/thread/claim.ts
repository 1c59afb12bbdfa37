/**
 * One writer per thread: a run (or a state update) claims its thread in the saver before it
 * reads anything, renews the claim while it works, and gives it back when done. A claim held
 * by someone else means `ThreadBusyError`, before any node runs; a claim lost while the run
 * works (`HeldClaim.confirmed`) means `ThreadClaimLostError` before its next write.
 */
import type { BaseCheckpointSaver } from "../checkpoint/base.js";
import { ThreadBusyError, ThreadClaimLostError } from "../errors/storage.js";
import { isDeadOwner, newClaimOwner } from "./claim-owner.js";

/** How long a claim lasts without renewal unless the run says otherwise (`claimTtlMs`). */
export const DEFAULT_CLAIM_TTL_MS = 30_000;

/**
 * A claim this process holds, and when the saver last confirmed it. A claim lapses unless
 * renewed within its TTL; one that lapsed (the process was paused, or cut off from storage)
 * may have gone to someone else, so a write after it first renews it, and a renewal refused
 * means the thread is someone else's now.
 */
export class HeldClaim {
  /** When the last renewal that succeeded was sent (its TTL runs from no earlier). */
  private confirmedAt = Date.now();
  private lost = false;

  constructor(
    private readonly saver: BaseCheckpointSaver,
    readonly threadId: string,
    readonly owner: string,
    readonly ttlMs: number,
  ) {}

  /** Renews the claim; false: someone else holds it now. */
  async renew(): Promise<boolean> {
    const sent = Date.now();
    const held = await this.saver.claimThread(this.threadId, { owner: this.owner, ttlMs: this.ttlMs });
    if (held) this.confirmedAt = Math.max(this.confirmedAt, sent);
    else this.lost = true;
    return held;
  }

  /**
   * Before a write: undefined when the claim is known to be held (confirmed within its TTL,
   * the common case, checked without a promise); else a renewal, which rejects with
   * `ThreadClaimLostError` when someone else holds the thread.
   */
  confirmed(): Promise<void> | undefined {
    if (!this.lost && Date.now() - this.confirmedAt < this.ttlMs) return undefined;
    if (this.lost) return Promise.reject(new ThreadClaimLostError(this.threadId));
    return this.renew().then((held) => {
      if (!held) throw new ThreadClaimLostError(this.threadId);
    });
  }
}

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
  work: (claim: HeldClaim) => Promise<T>,
): Promise<T> {
  const owner = newClaimOwner();
  if (!(await saver.claimThread(threadId, { owner, ttlMs }))) await takeOver(saver, threadId, owner, ttlMs);
  const claim = new HeldClaim(saver, threadId, owner, ttlMs);
  const heartbeat = setInterval(() => void claim.renew().catch(() => undefined), Math.max(ttlMs / 3, 10));
  heartbeat.unref();
  try {
    return await work(claim);
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
