/**
 * Puts that need not be durable yet, held in memory to go with the thread's next put in one
 * statement: one round trip fewer per run. A run saves its input checkpoint with
 * `durable: false` (PutOptions) when no node runs before its next save, and flushes (`flush()`)
 * before it relies on it; a process that dies in between leaves the thread as it was before
 * the run, as if it had died before the input was saved.
 *
 * Anything else that touches the thread sends the held put alone first (`send`): a read, writes,
 * a claim or its release, a prune, a put that cannot go with it; a delete drops it. Pure
 * bookkeeping: the saver runs the statements.
 */
import type * as Kit from "@interlude/core/saver-kit";
import { blobKey } from "@interlude/core/saver-kit";

interface Held {
  readonly put: Kit.PreparedPut;
  /** Being sent alone: settles once it is stored or refused. */
  sent?: Promise<void>;
}

type Send = (put: Kit.PreparedPut) => Promise<void>;

export class DeferredPuts {
  /** By thread: at most one per thread. */
  private readonly held = new Map<string, Held>();
  /**
   * Held puts refused when sent alone, by thread, until the thread's next put: writes that name
   * one are refused too (`refusal`), else a run's last writes (which check no head) would be
   * stored against a checkpoint that is not, and the run would end as if it had paused there.
   */
  private readonly refused = new Map<string, { readonly id: string; readonly error: unknown }>();

  get size(): number {
    return this.held.size;
  }

  /**
   * Keeps `put` for the thread's next put, and says so (false: send it now). Only a put that
   * cannot be refused for a missing delta base (no deltas), that checks the head (so that the
   * next one names it) and that releases no claim (which must not wait).
   */
  hold(put: Kit.PreparedPut): boolean {
    // A new put of the thread: an earlier refusal is its to report (the head it expects is missing).
    if (this.refused.size > 0) this.refused.delete(put.threadId);
    if (put.durable || put.expectedHead === undefined || put.releaseClaim !== undefined) return false;
    if (this.held.has(put.threadId) || put.blobs.some((blob) => blob.base !== null)) return false;
    this.held.set(put.threadId, { put });
    return true;
  }

  /**
   * The put held for `next`'s thread, taken so that the caller writes it along with `next`;
   * undefined when there is none, or when it cannot go with `next` (it is then sent alone
   * first, and its refusal is `next`'s). Waits for one already being sent alone.
   */
  async takeFor(next: Kit.PreparedPut, send: Send): Promise<Kit.PreparedPut | undefined> {
    const held = this.held.get(next.threadId);
    if (!held) return undefined;
    if (held.sent) {
      // Its refusal is reported to whoever sent it; `next` then finds the head it expects missing.
      await held.sent.catch(() => undefined);
      return undefined;
    }
    this.held.delete(next.threadId);
    if (pairs(held.put, next)) return held.put;
    await send(held.put);
    return undefined;
  }

  /** Sends the thread's held put alone, if there is one; rejects when it is refused. */
  send(threadId: string, send: Send): Promise<void> | undefined {
    const held = this.held.get(threadId);
    if (!held) return undefined;
    held.sent ??= send(held.put)
      .catch((error: unknown) => {
        this.refused.set(threadId, { id: held.put.id, error });
        throw error;
      })
      .finally(() => {
        if (this.held.get(threadId) === held) this.held.delete(threadId);
      });
    return held.sent;
  }

  /** Why the thread's held put `checkpointId` is not stored, if it was refused when sent alone. */
  refusal(threadId: string, checkpointId: string): unknown {
    const refused = this.refused.size > 0 ? this.refused.get(threadId) : undefined;
    return refused?.id === checkpointId ? refused.error : undefined;
  }

  /** Sends every held put alone; rejects with the first refusal once all are settled. */
  async sendAll(send: Send): Promise<void> {
    const results = await Promise.allSettled([...this.held.keys()].map((threadId) => this.send(threadId, send)));
    const failed = results.find((result) => result.status === "rejected");
    if (failed) throw failed.reason;
  }

  /** The thread is being deleted: its held put goes with it. */
  drop(threadId: string): void {
    this.held.delete(threadId);
    this.refused.delete(threadId);
  }
}

/**
 * Whether `next` can be written in one statement with the held put `before`: the same
 * namespace, expecting `before` as its head; no blob written twice (one statement cannot upsert
 * a row twice); and, on a thread's first put, no delta (that statement checks no bases).
 */
function pairs(before: Kit.PreparedPut, next: Kit.PreparedPut): boolean {
  if (next.ns !== before.ns || next.expectedHead !== before.id) return false;
  if (before.expectedHead === null && next.blobs.some((blob) => blob.base !== null)) return false;
  const written = new Set(before.blobs.map((blob) => blobKey(blob.channel, blob.version)));
  return !next.blobs.some((blob) => written.has(blobKey(blob.channel, blob.version)));
}
