/**
 * The saver's statements sent inside a caller's own transactions, for a caller on the same
 * database (the server's store): one transaction and one round trip fewer at each end of a run.
 *
 * - A first claim and its load (`claimIn`) go out with the caller's commit: the claim is
 *   committed with the caller's record of it (the server's run marked running) or not at all.
 *   The claim is taken under an owner of the saver's making; the next run of this process to
 *   claim the thread takes it over (`handoff`) without a round trip, and the saver then
 *   releases it under that owner.
 * - The last writes of the run that took such a claim over are held instead of sent
 *   (`parked`); the caller's next transaction sends them (`takeParked`), so the writes, the
 *   release of the claim and the caller's record of the run's end commit together or not at
 *   all. A crash before that commit leaves the thread at its last checkpoint (without the
 *   writes; the claim lapses), as a crash before the writes would. A caller that does not take
 *   them sends them on their own (`unpark`).
 * - A revocation (`revokeIn`) goes in the caller's transaction that takes a run from a process
 *   it holds for dead, so that the process, if alive after all, saves nothing more of it: what
 *   the transaction reads of the thread after the revocation is where the run stopped.
 *
 * Bookkeeping over the saver's state: the caller sends the statements in its transactions; what
 * it hands back (`unpark`, `sendAlone`, `dropHandoff`) the saver sends on its own.
 */
import { DEFAULT_CLAIM_TTL_MS, newClaimOwner } from "@interlude/core/saver-kit";
import type { QueryConfig } from "pg";
import type { CachedHead, HeadCache } from "./head-cache.js";
import { type LatestRow, type Loaded, latestOf, latestQuery } from "./latest.js";
import { named, SQL } from "./sql.js";

/** A statement as the caller sends it (`$n` placeholders). */
export type JoinedStatement = readonly [sql: string, params: unknown[]];

/** A claim this saver holds (or released with a run's last writes), with the checkpoint read when claiming. */
export interface Claimed {
  owner: string;
  /** The newest root checkpoint read with the claim (null: none yet; undefined: taken by getTuple, or stale since a put). */
  latest: Loaded | null | undefined;
  /** Already released along with the run's last writes: releaseThread sends nothing. */
  released?: boolean;
  /**
   * Taken in a caller's transaction under `owner`: the next writer of this process to claim the
   * thread takes it over. The caller makes sure that is its run (the server takes it with the
   * run's record, which makes the thread refuse other writers, and starts the run at once).
   */
  handoff?: boolean;
  /** The owner the claim is held under in the database, when a run took it over (`handoff`) under another name. */
  heldAs?: string;
  /** Taken over from a handoff: the run's last writes (those that release the claim) are held for the caller. */
  parks?: boolean;
}

/** The owner the database knows a claim of `owner` by. */
export function ownerInDatabase(claimed: ReadonlyMap<string, Claimed>, threadId: string, owner: string): string {
  const held = claimed.get(threadId);
  return held?.owner === owner && held.heldAs !== undefined ? held.heldAs : owner;
}

/** A first claim sent in a caller's transaction: the statement, and what to do with its rows once committed. */
export interface ClaimInTransaction {
  readonly statement: JoinedStatement;
  /** The owner the claim is taken under (`dropHandoff` releases it if no run took it over). */
  readonly owner: string;
  /** Records the claim from its rows, once the transaction has committed; false: not taken. */
  committed(rows: readonly Record<string, unknown>[]): boolean;
}

/** What the saver shares with its joined statements. */
export interface SaverState {
  readonly claimed: Map<string, Claimed>;
  readonly cache: HeadCache;
  /** The last writes of runs that took a handoff over, held for the caller, by thread. */
  readonly parked: Map<string, QueryConfig>;
  /** Sends a statement on its own (a parked one nobody took, a handoff's release). */
  send(operation: string, query: QueryConfig): Promise<void>;
}

/**
 * The checkpoint the claim's rows hold; undefined (the run reads it again) when they cannot be
 * read: the claim is committed by then, and must be recorded whatever its load came to.
 */
function loadedOf(rows: readonly LatestRow[], cached: CachedHead | undefined): Loaded | null | undefined {
  try {
    return latestOf(rows, cached);
  } catch {
    return undefined;
  }
}

const NOTHING_TO_SEND: Promise<void> = Promise.resolve();

export class JoinedSaver {
  constructor(private readonly state: SaverState) {}

  /**
   * A first claim of `threadId` with the load of its newest checkpoint (SQL.claimLatestIn), for
   * the caller's transaction: call `committed` with its rows once that has committed.
   */
  claimIn(threadId: string, ttlMs = DEFAULT_CLAIM_TTL_MS): ClaimInTransaction {
    const owner = newClaimOwner();
    const cached = this.state.cache.get(threadId);
    const { text, values } = latestQuery("claimLatestIn", [threadId, owner, ttlMs], cached);
    return {
      statement: [text, values!],
      owner,
      committed: (rows) => {
        const latestRows = rows as unknown as readonly LatestRow[];
        if (latestRows[0]?.kind === "n") return false;
        // Taken from an owner that let go after the statement began: the read may have missed its last writes.
        const latest = latestRows[0]?.kind === "r" ? undefined : loadedOf(latestRows, cached);
        this.state.claimed.set(threadId, { owner, latest, handoff: true });
        return true;
      },
    };
  }

  /**
   * The revocation of whatever claim `threadId` has (SQL.revoke), for the caller's transaction
   * that takes the thread's run from a process it holds for dead: that process's run, if it
   * goes on, finds its claim gone at its next renewal and saves nothing more. It waits for the
   * run's writes under way (the thread's fence lock, sql.ts), and holds off those sent after it
   * until the caller's commit, when they find the claim revoked: the caller's reads of the
   * thread after it see everything the run saved.
   */
  revokeIn(threadId: string): JoinedStatement {
    return [SQL.revoke, [threadId]];
  }

  /** A claim taken with `claimIn` that no run took over (it failed before it began): released. */
  dropHandoff(threadId: string, owner: string): Promise<void> {
    const held = this.state.claimed.get(threadId);
    // Called after every run that took a claim so: most often there is nothing to do, and no promise is made for it.
    if (!held?.handoff || held.owner !== owner) return NOTHING_TO_SEND;
    this.state.claimed.delete(threadId);
    return this.state.send("releaseThread", named("release", [threadId, owner]));
  }

  /**
   * The parked last writes of `threadId` (with the release of its claim), for the caller's
   * transaction; undefined: none were held. They are the caller's now: if its transaction
   * fails, it sends them on their own (`sendAlone`).
   */
  takeParked(threadId: string): JoinedStatement | undefined {
    const query = this.state.parked.get(threadId);
    this.state.parked.delete(threadId);
    return query ? [query.text, query.values!] : undefined;
  }

  /** Stops holding `threadId`'s last writes; writes held and not taken are sent on their own. */
  unpark(threadId: string): Promise<void> {
    const parked = this.takeParked(threadId);
    return parked ? this.sendAlone(parked) : NOTHING_TO_SEND;
  }

  /** Writes taken with `takeParked` whose transaction failed: sent on their own. */
  async sendAlone([text, values]: JoinedStatement): Promise<void> {
    await this.state.send("putWrites", { text, values });
  }
}
