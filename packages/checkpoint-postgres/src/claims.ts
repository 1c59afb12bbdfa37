/**
 * The thread claims a PostgresSaver holds. A first claim also loads the thread's newest
 * checkpoint, which the run that claims it reads next (`takeLatest`) instead of asking again; a
 * run's last save releases its claim in the same statement (`releasedWith`), so that the release
 * that follows sends nothing. Claims taken in a caller's transaction are handed over here too
 * (joined.ts).
 */
import type { ClaimHolder, ThreadClaim } from "@interlude/core";
import type { QueryConfig } from "pg";
import type { HeadCache } from "./head-cache.js";
import { type Claimed, ownerInDatabase } from "./joined.js";
import { type LatestRow, type Loaded, latestOf, latestQuery } from "./latest.js";
import { named, SQL } from "./sql.js";

/** What the claims need of their saver. */
export interface ClaimsSaver {
  readonly cache: HeadCache;
  /** One statement, as the saver sends it, failing with a StorageError naming `operation`. */
  send<R = Record<string, unknown>>(
    operation: string,
    statement: QueryConfig | string,
    values?: unknown[],
  ): Promise<{ rows: R[]; rowCount: number }>;
  /** Stores the thread's held put (`durable: false`), if any, before the thread is read or released. */
  settle(threadId: string): Promise<void> | undefined;
}

export class HeldClaims {
  /** By thread: the claims this saver holds, or released with a run's last save. */
  readonly byThread = new Map<string, Claimed>();

  constructor(private readonly saver: ClaimsSaver) {}

  /** Takes or renews a claim (see `BaseCheckpointSaver.claimThread`); false: another holds it. */
  async claim(threadId: string, claim: ThreadClaim): Promise<boolean> {
    const held = this.byThread.get(threadId);
    // Released with the run's last writes: a heartbeat's late renewal is refused.
    if (held?.owner === claim.owner && held.released) return false;
    // Taken in a caller's transaction for the run that claims it next (joined.ts): no round trip.
    if (held?.handoff && claim.replaces === undefined) {
      this.byThread.set(threadId, { owner: claim.owner, latest: held.latest, heldAs: held.owner, parks: true });
      return true;
    }
    // Renewing our own claim, or taking over a dead holder's: no checkpoint comes with it.
    if (held?.owner === claim.owner || claim.replaces !== undefined) {
      const owner = this.ownerInDatabase(threadId, claim.owner);
      const result = await this.saver.send(
        "claimThread",
        named("claim", [threadId, owner, claim.ttlMs, claim.replaces ?? null]),
      );
      if (result.rowCount !== 1) return false;
      if (claim.replaces !== undefined) this.byThread.set(threadId, { owner: claim.owner, latest: undefined });
      return true;
    }
    // A run's held put (one that failed before its next put) is stored before the thread is read.
    await this.saver.settle(threadId);
    const cached = this.saver.cache.get(threadId);
    const { rows } = await this.saver.send<LatestRow>(
      "claimThread",
      latestQuery("claimLatest", [threadId, claim.owner, claim.ttlMs], cached),
    );
    if (rows[0]?.kind === "n") return false;
    // Taken from an owner that let go after the statement began: the read may have missed its last writes.
    const latest = rows[0]?.kind === "r" ? undefined : latestOf(rows, cached);
    this.byThread.set(threadId, { owner: claim.owner, latest });
    return true;
  }

  /** Who holds the thread's claim in the database, and until when. */
  async holder(threadId: string): Promise<ClaimHolder | undefined> {
    const result = await this.saver.send("claimHolder", SQL.claimHolder, [threadId]);
    const row = result.rows[0] as { owner: string; expires_at: number } | undefined;
    return row && { owner: row.owner, expiresAt: Number(row.expires_at) };
  }

  /** Releases `owner`'s claim, unless the run's last save did already. */
  async release(threadId: string, owner: string): Promise<void> {
    // What the run held back is stored before its claim goes.
    await this.saver.settle(threadId);
    const held = this.byThread.get(threadId);
    if (held?.owner === owner) {
      if (held.released) return void this.byThread.delete(threadId);
      held.latest = undefined;
    }
    const heldAs = this.ownerInDatabase(threadId, owner);
    await this.saver.send("releaseThread", named("release", [threadId, heldAs]));
    // Forgotten once released: a release that failed is tried again under the same name.
    if (held?.owner === owner && this.byThread.get(threadId) === held) this.byThread.delete(threadId);
  }

  /** The newest root checkpoint loaded with this process's claim, if nothing was written since. */
  takeLatest(threadId: string): Loaded | null | undefined {
    const held = this.byThread.get(threadId);
    if (!held || held.latest === undefined) return undefined;
    const latest = held.latest;
    held.latest = undefined;
    return latest;
  }

  /** The thread's head moved (a put) or is gone: the checkpoint read with the claim is no longer the newest. */
  headMoved(threadId: string): void {
    const held = this.byThread.get(threadId);
    if (held) held.latest = undefined;
  }

  /** The claim went with a run's last save: its release, next, sends nothing, and a late renewal takes nothing. */
  releasedWith(threadId: string, owner: string): void {
    this.byThread.set(threadId, { owner, latest: undefined, released: true });
  }

  /** Whether the run of `owner` took its claim over from a caller's transaction, which then takes its last writes (joined.ts). */
  parks(threadId: string, owner: string): boolean {
    const held = this.byThread.get(threadId);
    return held?.owner === owner && held.parks === true;
  }

  /**
   * Whether the thread's run here took its claim over from a caller's transaction and has not
   * released it: the caller then records the run's end in a durable transaction of its own, with
   * the run's last writes (joined.ts), so what the run stores before may commit relaxed.
   */
  endsInCaller(threadId: string): boolean {
    return this.byThread.get(threadId)?.parks === true;
  }

  /**
   * The owner (as the database knows it) whose claim fences the thread's writes from this saver:
   * the run of this process that holds the thread; undefined when none does (nothing fenced).
   */
  fenceOf(threadId: string): string | undefined {
    const held = this.byThread.get(threadId);
    if (!held || held.released || held.handoff) return undefined;
    return held.heldAs ?? held.owner;
  }

  /** The owner the database knows `owner`'s claim by. */
  ownerInDatabase(threadId: string, owner: string): string {
    return ownerInDatabase(this.byThread, threadId, owner);
  }
}
