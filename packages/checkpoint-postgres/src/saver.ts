import type { CheckpointTuple, ClaimHolder, ThreadClaim } from "@interlude/core";
import type * as Kit from "@interlude/core/saver-kit";
import { BASE_MISSING, blobKey, listSql, SaverKit, STORED } from "@interlude/core/saver-kit";
import pg from "pg";
import { storageError, withPoolClient } from "./pool.js";
import { migrate } from "./schema.js";
import { HEAD, SQL } from "./sql.js";

/** Claims and idle threads run on the database clock: no `now` option. */
export interface PostgresSaverOptions extends Omit<Kit.SaverKitOptions, "now"> {
  /** Run `setup()` on first use (default true). Set false when migrations are run separately. */
  autoSetup?: boolean;
}

interface CheckpointRow {
  id: string;
  parentId: string | null;
  record: Buffer;
  metadata: Buffer;
}

/**
 * Durable checkpoints in PostgreSQL, shared by any number of processes. `put` is a
 * compare-and-swap under a row lock on the (thread, namespace) head; claims and idle-thread
 * expiry use the database clock, so process clocks need not agree.
 */
export class PostgresSaver extends SaverKit {
  readonly pool: pg.Pool;
  private readonly ownsPool: boolean;
  private readonly autoSetup: boolean;
  private ready: Promise<void> | undefined;
  /** Threads this saver holds a claim on. */
  private readonly claimed = new Map<string, Claimed>();

  /** `PostgresSaver.fromConnString("postgres://user@host/db")`: the saver owns (and closes) the pool. */
  static fromConnString(connectionString: string, options?: PostgresSaverOptions): PostgresSaver {
    return new PostgresSaver(connectionString, options);
  }

  constructor(pool: pg.Pool | string, options: PostgresSaverOptions = {}) {
    super(options);
    this.ownsPool = typeof pool === "string";
    this.pool = typeof pool === "string" ? new pg.Pool({ connectionString: pool }) : pool;
    if (this.ownsPool) this.pool.on("error", () => {}); // idle clients dying is reported on their next use
    this.autoSetup = options.autoSetup ?? true;
    this.sweepPeriodically(options);
  }

  /** Creates or upgrades the tables. Idempotent, and safe to call from several processes at once. */
  setup(): Promise<void> {
    this.ready ??= this.withClient("setup", migrate).catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }

  protected loadTuple(threadId: string, ns: string, id: string | undefined): Promise<CheckpointTuple | undefined> {
    const claimed = id === undefined && ns === "" ? this.takeClaimedLatest(threadId) : undefined;
    if (claimed !== undefined)
      return this.guard("getTuple", async () => (claimed ? this.load(threadId, ns, claimed.row, claimed) : undefined));
    return this.guard("getTuple", async () => {
      const { rows } =
        id === undefined
          ? await this.pool.query<CheckpointRow>(named("latest", [threadId, ns]))
          : await this.pool.query<CheckpointRow>(named("checkpoint", [threadId, ns, id]));
      return rows[0] && this.load(threadId, ns, rows[0]);
    });
  }

  /**
   * The head read of `getHeadId` as SQL text with `?` placeholders and its parameters, for a
   * store on the same database that reads it inside a query of its own (one round trip fewer).
   * Its one row's `head_id` is the head; no row or null: the thread has no checkpoint.
   */
  headStatement(threadId: string, checkpointNs = ""): readonly [sql: string, params: unknown[]] {
    return [HEAD, [threadId, checkpointNs]];
  }

  override async getHeadId(threadId: string, checkpointNs = ""): Promise<string | undefined> {
    return this.guard("getHeadId", async () => {
      const { rows } = await this.pool.query<{ head_id: string | null }>(named("head", [threadId, checkpointNs]));
      return rows[0]?.head_id ?? undefined;
    });
  }

  protected listCandidates(scope: Kit.ListScope): Promise<Array<Kit.ListCandidate<Buffer>>> {
    const { text, params } = listSql("interlude_checkpoints", scope, (n) => `$${n}`);
    return this.guard("list", async () => (await this.pool.query<Kit.ListCandidate<Buffer>>(text, params)).rows);
  }

  /**
   * One put in one round trip: interlude_put (schema.ts) checks the head and the delta bases,
   * then writes; a run's last put also releases its claim (`PutOptions.releaseClaim`).
   */
  protected storePut(put: Kit.PreparedPut): Promise<Kit.PutOutcome> {
    // The head moves: a checkpoint read with the claim is no longer the newest.
    const held = this.claimed.get(put.threadId);
    if (held) held.latest = undefined;
    return this.guard("put", async () => {
      try {
        await this.pool.query(putQuery(put));
        if (put.releaseClaim !== undefined) this.releasedWith(put.threadId, put.releaseClaim);
        return STORED;
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (code === HEAD_MOVED) return { head: (error as { detail?: string }).detail || null };
        if (code === BASE_GONE) return BASE_MISSING;
        throw error;
      }
    });
  }

  /** A run's last writes also release its claim, in the same statement (`PutWritesOptions.releaseClaim`). */
  protected async storeWrites({ threadId, ns, checkpointId, taskId, rows, releaseClaim }: Kit.PreparedWrites) {
    const values = [
      threadId,
      ns,
      checkpointId,
      taskId,
      rows.map((r) => r.idx),
      rows.map((r) => r.channel),
      rows.map((r) => toBytes(r.data)),
    ];
    const query =
      releaseClaim === undefined ? named("putWrites", values) : named("putWritesRelease", [...values, releaseClaim]);
    await this.guard("putWrites", () => this.pool.query(query));
    if (releaseClaim !== undefined) this.releasedWith(threadId, releaseClaim);
  }

  /** The claim went with a run's last save: its releaseThread, next, sends nothing, and a late renewal takes nothing. */
  private releasedWith(threadId: string, owner: string): void {
    this.claimed.set(threadId, { owner, latest: undefined, released: true });
  }

  protected async removeThread(threadId: string): Promise<void> {
    const held = this.claimed.get(threadId);
    if (held) held.latest = undefined;
    await this.guard("deleteThread", () => this.pool.query(SQL.deleteThread, [threadId]));
  }

  /**
   * A first claim also loads the thread's newest checkpoint, which the run that claims it reads
   * next (getTuple takes it from `claimed` instead of asking again). A renewal only renews.
   */
  async claimThread(threadId: string, claim: ThreadClaim): Promise<boolean> {
    const held = this.claimed.get(threadId);
    // Released with the run's last writes: a heartbeat's late renewal is refused.
    if (held?.owner === claim.owner && held.released) return false;
    // Renewing our own claim, or taking over a dead holder's: no checkpoint comes with it.
    if (held?.owner === claim.owner || claim.replaces !== undefined) {
      const result = await this.guard("claimThread", () =>
        this.pool.query(named("claim", [threadId, claim.owner, claim.ttlMs, claim.replaces ?? null])),
      );
      if (result.rowCount !== 1) return false;
      if (claim.replaces !== undefined) this.claimed.set(threadId, { owner: claim.owner, latest: undefined });
      return true;
    }
    const { rows } = await this.guard("claimThread", () =>
      this.pool.query<ClaimLoadRow>(named("claimLoad", [threadId, claim.owner, claim.ttlMs])),
    );
    if (rows[0]?.kind === "n") return false;
    this.claimed.set(threadId, { owner: claim.owner, latest: claimedLatest(rows) });
    return true;
  }

  override async claimHolder(threadId: string): Promise<ClaimHolder | undefined> {
    const result = await this.guard("claimHolder", () => this.pool.query(SQL.claimHolder, [threadId]));
    const row = result.rows[0] as { owner: string; expires_at: number } | undefined;
    return row && { owner: row.owner, expiresAt: Number(row.expires_at) };
  }

  async releaseThread(threadId: string, owner: string): Promise<void> {
    const held = this.claimed.get(threadId);
    if (held?.owner === owner) {
      this.claimed.delete(threadId);
      if (held.released) return;
    }
    await this.guard("releaseThread", () => this.pool.query(named("release", [threadId, owner])));
  }

  /** The newest root checkpoint loaded with this process's claim, if nothing was written since. */
  private takeClaimedLatest(threadId: string): Loaded | null | undefined {
    const held = this.claimed.get(threadId);
    if (!held || held.latest === undefined) return undefined;
    const latest = held.latest;
    held.latest = undefined;
    return latest;
  }

  protected threadsCreatedBefore(cutoff: number): Promise<string[]> {
    return this.guard("prune", async () =>
      (await this.pool.query<{ thread_id: string }>(SQL.threadsWithOld, [cutoff])).rows.map((r) => r.thread_id),
    );
  }

  protected pruneThread(threadId: string, request: Kit.PruneRequest): Promise<number> {
    return this.transaction("prune", async (client) => {
      await client.query(SQL.lockThread, [threadId]);
      const rows = (await client.query<Kit.PruneCandidate<Buffer>>(SQL.pruneRows, [threadId])).rows;
      const blobs = (await client.query<Kit.StoredBlobRef>(SQL.blobBases, [threadId])).rows;
      const plan = this.planPrune(request, rows, blobs);
      for (const { ns, checkpoints, blobs: unread } of plan.namespaces) {
        await client.query(SQL.deleteCheckpoints, [threadId, ns, checkpoints]);
        if (unread.length)
          await client.query(SQL.deleteBlobs, [
            threadId,
            ns,
            unread.map((b) => b.channel),
            unread.map((b) => b.version),
          ]);
      }
      return plan.removed;
    });
  }

  override async sweep(): Promise<number> {
    await this.guard("sweep", () => this.pool.query(SQL.expiredClaims));
    if (!this.ttlMs) return 0;
    const idle = await this.guard(
      "sweep",
      async () => (await this.pool.query<{ thread_id: string }>(SQL.idleThreads, [this.ttlMs])).rows,
    );
    for (const { thread_id } of idle) await this.deleteThread(thread_id);
    return idle.length;
  }

  override async close(): Promise<void> {
    await super.close();
    if (this.ownsPool) await this.pool.end();
  }

  /** @param loaded the row's blobs and writes, when they were read along with it */
  private async load(threadId: string, ns: string, row: CheckpointRow, loaded?: Loaded): Promise<CheckpointTuple> {
    const record = this.read(row.record) as Kit.CheckpointRecord;
    const channels = Object.keys(record.channel_versions);
    const [chains, writes] = loaded?.blobs
      ? [{ rows: loaded.blobs }, { rows: loaded.writes }]
      : await Promise.all([
          this.pool.query<BlobRow>(
            named("blobChains", [threadId, ns, channels, channels.map((c) => record.channel_versions[c])]),
          ),
          this.pool.query<Kit.StoredWrite>(named("writes", [threadId, ns, row.id])),
        ]);
    const blobs = new Map<string, Kit.StoredBlob>(
      chains.rows.map((b) => [blobKey(b.channel, b.version), { base: b.base, data: b.data }]),
    );
    return this.tupleOf(threadId, ns, row, (c, v) => blobs.get(blobKey(c, v)), writes.rows, record);
  }

  private async transaction<T>(operation: string, body: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return this.withClient(operation, async (client) => {
      await client.query("BEGIN");
      try {
        const result = await body(client);
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw error;
      }
    });
  }

  private async withClient<T>(operation: string, body: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    if (operation !== "setup") await this.ensureReady();
    return withPoolClient(this.pool, operation, body);
  }

  private async guard<T>(operation: string, body: () => Promise<T>): Promise<T> {
    try {
      await this.ensureReady();
      return await body();
    } catch (error) {
      throw storageError(operation, error);
    }
  }

  private ensureReady(): Promise<void> {
    return this.autoSetup ? this.setup() : Promise.resolve();
  }
}

interface BlobRow {
  channel: string;
  version: number;
  base: number | null;
  data: Buffer | null;
}

/** A claim this saver holds (or released with a run's last writes), with the checkpoint read when claiming. */
interface Claimed {
  owner: string;
  /** The newest root checkpoint read with the claim (null: none yet; undefined: taken by getTuple, or stale since a put). */
  latest: Loaded | null | undefined;
  /** Already released along with the run's last writes: releaseThread sends nothing. */
  released?: boolean;
}

/** A checkpoint row with, when read along with it, its blobs and pending writes. */
interface Loaded {
  row: CheckpointRow;
  blobs?: BlobRow[];
  writes: Kit.StoredWrite[];
}

/** A row of interlude_claim_load (schema.ts). */
interface ClaimLoadRow {
  kind: "n" | "c" | "b" | "w";
  id: string | null;
  parent: string | null;
  channel: string | null;
  version: number | null;
  base: number | null;
  data: Buffer | null;
  extra: Buffer | null;
  complete: boolean;
}

/** The checkpoint interlude_claim_load returned (null: the thread has none). */
function claimedLatest(rows: ClaimLoadRow[]): Loaded | null {
  const head = rows.find((r) => r.kind === "c");
  if (!head) return null;
  const row: CheckpointRow = {
    id: head.id!,
    parentId: head.parent,
    record: head.data!,
    metadata: head.extra!,
  };
  // Written before the checkpoint rows listed their versions: load() reads the blobs itself.
  if (!head.complete) return { row, writes: [] };
  const blobs: BlobRow[] = [];
  const writes: Kit.StoredWrite[] = [];
  for (const r of rows) {
    if (r.kind === "b") blobs.push({ channel: r.channel!, version: r.version!, base: r.base, data: r.data });
    else if (r.kind === "w") writes.push({ taskId: r.id!, channel: r.channel!, data: r.data! });
  }
  return { row, blobs, writes };
}

/** SQLSTATEs raised by interlude_put (schema.ts). */
const HEAD_MOVED = "IL409";
const BASE_GONE = "IL412";

/** A hot statement, prepared once per connection under its name. */
function named(statement: keyof typeof SQL, values: unknown[]): pg.QueryConfig {
  return { name: `interlude_${statement}`, text: SQL[statement], values };
}

/** interlude_put's arguments (schema.ts): the head expected, the delta bases to check, then the rows. */
function putQuery(put: Kit.PreparedPut): pg.QueryConfig {
  const versions = put.versions;
  const channels = Object.keys(versions);
  const deltas = put.blobs.filter((blob) => blob.base !== null);
  const blobs = put.blobs;
  const values = [
    put.threadId,
    put.ns,
    put.expectedHead !== undefined,
    put.expectedHead ?? null,
    deltas.map((b) => b.channel),
    deltas.map((b) => b.base),
    blobs.map((b) => b.channel),
    blobs.map((b) => b.version),
    blobs.map((b) => b.base),
    blobs.map((b) => toBytes(b.data)),
    put.id,
    put.parentId ?? null,
    put.createdAt,
    toBytes(put.record),
    toBytes(put.metadata),
    channels,
    channels.map((c) => versions[c]),
  ];
  return put.releaseClaim === undefined ? named("put", values) : named("putRelease", [...values, put.releaseClaim]);
}

function toBytes(data: string | Uint8Array | null): Buffer | null {
  if (data === null) return null;
  return typeof data === "string"
    ? Buffer.from(data, "utf8")
    : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}
