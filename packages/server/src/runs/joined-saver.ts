/**
 * A run's claim and its last writes ride in the store's transactions, when the checkpoint saver
 * is the PostgresSaver on the store's own database (`ServerContext.joinedSaver`): queueing a run
 * that is executed here at once also claims its thread and loads its checkpoint, in the
 * queue's commit exchange, and the run's last writes (the interrupt it paused on, with the
 * release of its claim) go out with the first exchange of the transaction that records its end.
 * An answer then takes three transactions (queue, the run's checkpoint, finish) instead of five.
 * Otherwise (SQLite, or no joined saver) the run claims and writes through the saver, as before.
 */
import type { ServerContext } from "../context.js";
import { PgDb } from "../store/db.js";
import type { StoreTx } from "../store/store.js";

/**
 * The thread's claim and checkpoint load, sent with `tx`'s commit: both committed with the run
 * marked running, or neither. Resolves once committed with the owner the claim was taken under
 * (the run executed next takes it over), or undefined: not taken (the run claims as usual), or
 * nothing was sent (no joined saver).
 */
export function claimAtCommit(ctx: ServerContext, tx: StoreTx, threadId: string): Promise<string | undefined> {
  const joined = ctx.joinedSaver;
  if (!joined || !(tx.db instanceof PgDb)) return Promise.resolve(undefined);
  const claim = joined.claimIn(threadId, ctx.claimTtlMs);
  return tx.db.readAtCommit(claim.statement).then((rows) => (rows && claim.committed(rows) ? claim.owner : undefined));
}

/**
 * While `work` executes the run: a run that takes over the claim taken with its record
 * (`handoff`) has its last writes held for `finishWith`. Afterwards a claim the run did not
 * take over is released, and writes held and not taken by the finish are sent on their own.
 */
export async function withJoinedSaver<T>(
  ctx: ServerContext,
  threadId: string,
  handoff: Promise<string | undefined> | undefined,
  work: () => Promise<T>,
): Promise<T> {
  const joined = ctx.joinedSaver;
  if (!joined) return work();
  const owner = await handoff;
  try {
    return await work();
  } finally {
    await joined.unpark(threadId).catch(() => undefined); // the claim lapses: the thread stays at its last checkpoint
    if (owner !== undefined) await joined.dropHandoff(threadId, owner).catch(() => undefined);
  }
}

/**
 * Runs `body` in the finish's transaction (under the thread's lock) with the run's held last writes sent first in it: the
 * writes, their claim's release and the store's record of the run's end commit together or not
 * at all. If the transaction fails, the writes are sent on their own (a thread left at its last
 * checkpoint otherwise, with its claim until it lapses).
 */
export async function finishWith<T>(
  ctx: ServerContext,
  threadId: string,
  body: (tx: StoreTx) => Promise<T>,
): Promise<T> {
  const joined = ctx.joinedSaver;
  const parked = joined?.takeParked(threadId);
  if (!parked) return ctx.store.tx(body, threadId);
  try {
    return await ctx.store.tx(async (tx) => {
      await tx.db.write(parked[0], parked[1]);
      return body(tx);
    }, threadId);
  } catch (error) {
    await joined!.sendAlone(parked).catch(() => undefined);
    throw error;
  }
}

/**
 * Revokes the thread's claim in `tx`, the transaction that takes the thread's run from a
 * process held for dead (runs/lease.ts): that process, if alive after all (paused, or cut off
 * from the database for longer than the lease), finds its claim gone at its next renewal and
 * saves nothing more of the run (`HeldClaim`, core), so what the thread holds once `tx`
 * commits is where the run stopped. Nothing is revoked without a joined saver: on SQLite one
 * process serves the file, and the run's process is known to be gone.
 */
export async function revokeClaim(ctx: ServerContext, tx: StoreTx, threadId: string): Promise<void> {
  const joined = ctx.joinedSaver;
  if (!joined || !(tx.db instanceof PgDb)) return;
  const [sql, params] = joined.revokeIn(threadId);
  await tx.db.write(sql, params);
}
