import {
  type ChannelVersions,
  CheckpointConflictError,
  type CheckpointTuple,
  type ClaimHolder,
  JsonSerializer,
  type PendingWrite,
  StorageError,
  type ThreadClaim,
  ThreadClaimLostError,
} from "@interlude/core";
import type * as Kit from "@interlude/core/saver-kit";
import { BASE_MISSING, blobKey, listSql, parsedOf, SaverKit, STORED, seedOf } from "@interlude/core/saver-kit";
import type pg from "pg";
import { HeldClaims } from "./claims.js";
import { Database } from "./database.js";
import { DeferredPuts } from "./deferred-puts.js";
import { GroupCommit } from "./group-commit.js";
import { HeadCache, type HeldBlob } from "./head-cache.js";
import {
  type InlineValues,
  inlineValues,
  mayInline,
  NO_INLINE_VALUES,
  type ParentRow,
  type PlannedPut,
  parentValues,
  planInline,
  withInline,
} from "./inline-values.js";
import { JoinedSaver } from "./joined.js";
import {
  type BlobRow,
  type CheckpointRow,
  type LatestRow,
  type Loaded,
  latestOf,
  latestQuery,
  replacedHead,
} from "./latest.js";
import type { PipelinedStatement } from "./pipeline.js";
import { statementOn, storageError } from "./pool.js";
import { BASE_GONE, HEAD_MOVED, oneStatementPut, putQuery, rewritten, toBytes } from "./put-query.js";
import { optionsOf, type PostgresSaverOptions, settingsOf } from "./saver-options.js";
import { migrate } from "./schema.js";
import { GROUPED, HEAD, named, SQL } from "./sql.js";

/** Expired claims a sweep deletes per statement (SQL.expiredClaims): fence locks held at once. */
const EXPIRED_CLAIMS_BATCH = 500;

/**
 * Durable checkpoints in PostgreSQL, shared by any number of processes. `put` is a
 * compare-and-swap under a row lock on the (thread, namespace) head; claims and idle-thread
 * expiry use the database clock, so process clocks need not agree.
 */
export class PostgresSaver extends SaverKit {
  readonly pool: pg.Pool;
  private readonly database: Database;
  private readonly claims: HeldClaims;
  private readonly cache: HeadCache;
  /** The cache also keeps private plain copies of what it holds (JSON serializer only, the kit's private-copies.ts). */
  private readonly copies: boolean;
  /** Copies of what root puts carried, taken when `put` was called (a held put is stored later). */
  private readonly seeds = new WeakMap<Kit.PreparedPut, Kit.PutSeed>();
  /** Puts made with `durable: false`, waiting to go with the thread's next put. */
  private readonly deferred = new DeferredPuts();
  /** Statements of concurrent runs sent together; undefined with `groupCommit: false`. */
  private readonly commits: GroupCommit | undefined;
  /** Threads whose run's last writes are held for a caller's transaction (joined.ts). */
  private readonly parked = new Map<string, pg.QueryConfig>();
  /**
   * Its statements for a caller on the same database to send in its own transactions
   * (joined.ts): the server's store, whose pool connects to the same database.
   */
  readonly joined: JoinedSaver;

  /** `PostgresSaver.fromConnString("postgres://user@host/db")`: the saver owns (and closes) the pool. */
  static fromConnString(connectionString: string, options?: PostgresSaverOptions): PostgresSaver {
    return new PostgresSaver(connectionString, options);
  }

  /**
   * @param langGraphOptions the options, when given third after an undefined second: LangGraph's
   *   `new PostgresSaver(pool, undefined, { schema })`
   */
  constructor(pool: pg.Pool | string, given?: PostgresSaverOptions, langGraphOptions?: PostgresSaverOptions) {
    const options = optionsOf(given, langGraphOptions);
    super(options);
    // First: it refuses unknown options and bad limits, before a pool is made.
    const { limits, groupCommit: grouped, autoSetup, schema } = settingsOf(options);
    this.copies = this.serde instanceof JsonSerializer && limits.threads > 0;
    this.cache = new HeadCache(limits, this.copies);
    this.claims = new HeldClaims({
      cache: this.cache,
      send: (operation, statement, values) => this.send(operation, statement, values),
      settle: (threadId) => this.settle(threadId),
    });
    this.database = new Database(pool, { migrate, setupOperation: "setup", autoSetup, schema });
    this.pool = this.database.pool;
    // A run whose end the server records in a durable transaction of its own stores its steps relaxed.
    this.commits = grouped
      ? new GroupCommit(this.pool, GROUPED, (thread) => this.claims.endsInCaller(thread))
      : undefined;
    this.sweepPeriodically(options);
    this.joined = new JoinedSaver({
      claimed: this.claims.byThread,
      cache: this.cache,
      parked: this.parked,
      send: async (operation, query) => void (await this.send(operation, query)),
    });
  }

  /** Creates or upgrades the tables. Idempotent, and safe to call from several processes at once. */
  setup(): Promise<void> {
    return this.database.setup();
  }

  protected loadTuple(threadId: string, ns: string, id: string | undefined): Promise<CheckpointTuple | undefined> {
    const claimed = id === undefined && ns === "" ? this.claims.takeLatest(threadId) : undefined;
    if (claimed !== undefined)
      return this.database.guard("getTuple", async () => (claimed ? this.load(threadId, ns, claimed) : undefined));
    return this.database.guard("getTuple", async () => {
      await this.settle(threadId);
      if (id === undefined) {
        const held = this.heldHead(threadId, ns);
        const { rows } = await this.query<LatestRow>(latestQuery("readLatest", [threadId, ns], held));
        const latest = latestOf(rows, held);
        return latest ? this.load(threadId, ns, latest) : undefined;
      }
      const { rows } = await this.query<CheckpointRow>(named("checkpoint", [threadId, ns, id]));
      return rows[0] && this.load(threadId, ns, { row: rows[0] });
    });
  }

  /** The newest checkpoint this saver holds for the thread (root namespace only). */
  private heldHead(threadId: string, ns: string) {
    return ns === "" ? this.cache.get(threadId) : undefined;
  }

  /**
   * The head read of `getHeadId` as SQL text with `?` placeholders and its parameters, for a
   * store on the same database that reads it inside a query of its own (one round trip fewer).
   * Its one row's `head_id` is the head; no row or null: the thread has no checkpoint. A put
   * this saver holds back (`durable: false`, deferred-puts.ts) is not in it yet.
   */
  headStatement(threadId: string, checkpointNs = ""): readonly [sql: string, params: unknown[]] {
    return [HEAD, [threadId, checkpointNs]];
  }

  override async getHeadId(threadId: string, checkpointNs = ""): Promise<string | undefined> {
    return this.database.guard("getHeadId", async () => {
      await this.settle(threadId);
      const { rows } = await this.query<{ head_id: string | null }>(named("head", [threadId, checkpointNs]));
      return rows[0]?.head_id ?? undefined;
    });
  }

  protected listCandidates(scope: Kit.ListScope): Promise<Array<Kit.ListCandidate<Buffer>>> {
    const { text, params } = listSql("interlude_checkpoints", scope, (n) => `$${n}`);
    return this.database.guard("list", async () => {
      if (scope.threadId !== undefined) await this.settle(scope.threadId);
      else await this.deferred.sendAll(this.sendAlone).catch(() => undefined);
      return (await this.query<Kit.ListCandidate<Buffer>>(text, params)).rows;
    });
  }

  /**
   * One put in one round trip, usually: a put that names the head it expects is one plain
   * statement (sql.ts, putStatement); any other put, or one that statement did not store, is
   * interlude_put (schema.ts), which checks the head and the delta bases and
   * reports why it refuses. A run's last put also releases its claim (`PutOptions.releaseClaim`).
   * A put that need not be durable yet waits for the thread's next one, and both go in one
   * statement (deferred-puts.ts).
   */
  protected storePut(put: Kit.PreparedPut): Promise<Kit.PutOutcome> {
    this.claims.headMoved(put.threadId);
    if (this.copies && put.ns === "") {
      const seed = seedOf(put);
      if (seed) this.seeds.set(put, seed);
    }
    if (this.deferred.hold(put)) return Promise.resolve(STORED);
    return this.database.guard("put", async () => {
      const before = this.deferred.size > 0 ? await this.deferred.takeFor(put, this.sendAlone) : undefined;
      return this.store(put, before);
    });
  }

  /** Stores `put`, and with it `before`, a put held back until now (deferred-puts.ts). */
  private async store(put: Kit.PreparedPut, before?: Kit.PreparedPut): Promise<Kit.PutOutcome> {
    try {
      const releaseAs = put.releaseClaim && this.claims.ownerInDatabase(put.threadId, put.releaseClaim);
      const owner = releaseAs ?? this.claims.fenceOf(put.threadId);
      // Most often planned from memory: no turn spent waiting for it.
      const planning = before && this.planned(before);
      const earlier = planning instanceof Promise ? await planning : planning;
      const next = this.planned(put, earlier);
      const planned = next instanceof Promise ? await next : next;
      const one = oneStatementPut(planned, earlier, owner);
      let stored = one && (await this.query<{ stamp: string }>(one).catch(rewritten)).rows[0];
      // Not stored: each on its own, so that the refused one says why.
      if (!stored && before) {
        await this.sendAlone(before);
        return await this.store(put);
      }
      // The long way says why the one statement stored nothing, and is fenced as it is.
      stored ??= (await this.query<{ stamp: string }>(putQuery(planned, owner))).rows[0];
      if (!stored) throw new ThreadClaimLostError(put.threadId);
      if (put.ns === "") {
        if (earlier) this.cache.put(before!, stored.stamp, earlier.plan.values, this.seeds.get(before!));
        this.cache.put(put, stored.stamp, planned.plan.values, this.seeds.get(put));
      }
      if (put.releaseClaim !== undefined) this.claims.releasedWith(put.threadId, put.releaseClaim);
      return STORED;
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === BASE_GONE) return BASE_MISSING;
      // Another process wrote the thread, or the put may or may not have been stored.
      this.cache.forget(put.threadId);
      if (code === HEAD_MOVED) return { head: (error as { detail?: string }).detail || null };
      throw error;
    }
  }

  /**
   * The put with its inline plan (inline-values.ts): its parent's inline values come from the
   * put held back with it, the head cache, or else the parent's row (a statement more).
   */
  private planned(put: Kit.PreparedPut, before?: PlannedPut): PlannedPut | Promise<PlannedPut> {
    const parent = this.heldParentValues(put, before);
    if (parent) return { put, plan: planInline(put, parent) };
    return this.query<ParentRow>(named("inlineOf", [put.threadId, put.ns, put.parentId])).then(({ rows }) => ({
      put,
      plan: planInline(put, parentValues(rows[0])),
    }));
  }

  /** The inline values of the put's parent when this saver holds them (undefined: read its row). */
  private heldParentValues(put: Kit.PreparedPut, before?: PlannedPut): InlineValues | undefined {
    const { parentId } = put;
    if (parentId === undefined || !mayInline(put)) return NO_INLINE_VALUES;
    if (before?.put.id === parentId) return before.plan.values;
    const head = this.cache.get(put.threadId);
    return head?.id === parentId ? head.inline : undefined;
  }

  /** A held put sent on its own: stored, or refused with the error its own `put` would have thrown. */
  private readonly sendAlone = async (put: Kit.PreparedPut): Promise<void> => {
    const outcome = await this.store(put);
    if (outcome === STORED) return;
    // A held put has no deltas (DeferredPuts.hold): no base can be missing.
    if (outcome === BASE_MISSING)
      throw new StorageError("put", new Error("a put without deltas reported a missing base"));
    throw new CheckpointConflictError(put.threadId, put.expectedHead ?? null, outcome.head);
  };

  /**
   * Stores the thread's held put before anything else reads or writes the thread. Its refusal
   * is not the caller's: the run that made it finds its next put refused, and its writes
   * (`settleFor`).
   */
  private settle(threadId: string): Promise<void> | undefined {
    if (this.deferred.size === 0) return undefined;
    return this.deferred.send(threadId, this.sendAlone)?.catch(() => undefined);
  }

  /** Stores the puts held back (`durable: false`); rejects with the first refusal. */
  override flush(): Promise<void> {
    if (this.deferred.size === 0) return Promise.resolve();
    return this.database.guard("flush", () => this.deferred.sendAll(this.sendAlone));
  }

  /**
   * A run's last writes also release its claim, in the same statement (`PutWritesOptions.releaseClaim`);
   * held instead for the caller's transaction when the run took its claim over from one (joined.ts).
   */
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
    if (releaseClaim !== undefined && this.claims.parks(threadId, releaseClaim)) {
      // A held checkpoint goes first: the parked writes belong to it.
      await this.settleFor(threadId, checkpointId);
      const owner = this.claims.ownerInDatabase(threadId, releaseClaim);
      this.parked.set(threadId, named("putWritesReleaseParked", [...values, owner]));
      return this.claims.releasedWith(threadId, releaseClaim);
    }
    const query =
      releaseClaim === undefined
        ? named("putWrites", [...values, this.claims.fenceOf(threadId) ?? null])
        : named("putWritesRelease", [...values, this.claims.ownerInDatabase(threadId, releaseClaim)]);
    const stored = await this.database.guard("putWrites", async () => {
      await this.settleFor(threadId, checkpointId);
      return this.query<{ held: boolean }>(query);
    });
    if (stored.rows[0]?.held === false) throw new ThreadClaimLostError(threadId);
    if (releaseClaim !== undefined) this.claims.releasedWith(threadId, releaseClaim);
  }

  /**
   * Stores the thread's held put before writes that name `checkpointId`; rejects when that
   * checkpoint is the held put and it was refused (now or by an earlier reader's settle): the
   * writes would belong to a checkpoint that is not stored.
   */
  private async settleFor(threadId: string, checkpointId: string): Promise<void> {
    if (this.deferred.size > 0) await this.settle(threadId);
    const refusal = this.deferred.refusal(threadId, checkpointId);
    if (refusal !== undefined) throw storageError("putWrites", refusal);
  }

  protected async removeThread(threadId: string): Promise<void> {
    this.claims.headMoved(threadId);
    this.cache.forget(threadId);
    this.deferred.drop(threadId);
    await this.send("deleteThread", SQL.deleteThread, [threadId]);
  }

  /** A first claim also loads the thread's newest checkpoint (claims.ts). */
  claimThread(threadId: string, claim: ThreadClaim): Promise<boolean> {
    return this.claims.claim(threadId, claim);
  }

  override claimHolder(threadId: string): Promise<ClaimHolder | undefined> {
    return this.claims.holder(threadId);
  }

  releaseThread(threadId: string, owner: string): Promise<void> {
    return this.claims.release(threadId, owner);
  }

  protected threadsCreatedBefore(cutoff: number): Promise<string[]> {
    return this.send<{ thread_id: string }>("prune", SQL.threadsWithOld, [cutoff]).then(({ rows }) =>
      rows.map((r) => r.thread_id),
    );
  }

  protected async pruneThread(threadId: string, request: Kit.PruneRequest): Promise<number> {
    await this.settle(threadId);
    this.cache.forget(threadId);
    return this.database.transaction("prune", async (client) => {
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
        if (request.after === undefined) continue; // a prune keeps every head
        await client.query(SQL.dropEmptyHead, [threadId, ns]);
        await client.query(SQL.resetHead, [threadId, ns]);
      }
      // A rewind moves the head: the checkpoint loaded with a claim is no longer the newest.
      if (request.after !== undefined) this.claims.headMoved(threadId);
      return plan.removed;
    });
  }

  override async sweep(): Promise<number> {
    for (;;) {
      const { rowCount } = await this.send("sweep", SQL.expiredClaims, [EXPIRED_CLAIMS_BATCH]);
      if (rowCount < EXPIRED_CLAIMS_BATCH) break;
    }
    if (!this.ttlMs) return 0;
    const { rows: idle } = await this.send<{ thread_id: string }>("sweep", SQL.idleThreads, [this.ttlMs]);
    for (const { thread_id } of idle) await this.deleteThread(thread_id);
    return idle.length;
  }

  /**
   * Stops the saver's timers, saves what is held back, and ends its pool if the saver made it.
   * A second call (or `end()` after it) does nothing more.
   */
  override async close(): Promise<void> {
    await super.close();
    try {
      await this.flush();
    } finally {
      await this.database.close();
    }
  }

  /** LangGraph's way to close: as `close()`, then the pool is ended even if it was passed in, as LangGraph's `end()` ends it. */
  async end(): Promise<void> {
    await this.close();
    await this.database.close(true);
  }

  /** Reads what was not read along with the row, keeps a newest root checkpoint in the cache, and assembles it. */
  private async load(threadId: string, ns: string, loaded: Loaded): Promise<CheckpointTuple> {
    const { row } = loaded;
    const parsed = loaded.head?.parsed;
    // The writes come with a cached head's "unchanged" (latestOf): copies and those are all it takes.
    if (parsed && loaded.writes) {
      const writes: PendingWrite[] = loaded.writes.map((w) => [w.taskId, w.channel, this.serde.loads(w.data)]);
      return this.tupleFromCopies(threadId, ns, parsed, row, writes);
    }
    const record = this.read(row.record) as Kit.CheckpointRecord;
    const versions = record.channel_versions;
    // Most often both came with the row (a claim's load, the head cache): nothing to wait for.
    const [stored, writes] =
      loaded.blobs && loaded.writes
        ? [loaded.blobs, loaded.writes]
        : await Promise.all([
            loaded.blobs ?? this.readBlobs(threadId, ns, versions),
            loaded.writes ??
              this.query<Kit.StoredWrite>(named("writes", [threadId, ns, row.id])).then((result) => result.rows),
          ]);
    const inline = loaded.cached ?? inlineValues(row.inline, versions);
    const blobs = loaded.cached ? stored : withInline(stored, inline);
    let head = loaded.head;
    if (ns === "" && loaded.stamp !== undefined && !loaded.cached) {
      const { id, parentId, record, metadata } = row;
      head = this.cache.read(
        threadId,
        { id, parentId, record, metadata, inline, stamp: loaded.stamp, contested: loaded.contested ?? false },
        versions,
        blobs,
      );
    }
    const lookup = (channel: string, version: number) => blobs.get(blobKey(channel, version)) ?? undefined;
    const tuple = this.tupleOf(threadId, ns, row, lookup, writes, record, replacedHead(loaded.since));
    // Copied before it is handed out: the caller may change it.
    if (this.copies && head) head.parsed = parsedOf(tuple);
    return tuple;
  }

  /** The blobs of these channel versions, delta bases included. */
  private async readBlobs(threadId: string, ns: string, versions: ChannelVersions) {
    const channels = Object.keys(versions);
    const query = named("blobChains", [threadId, ns, channels, channels.map((c) => versions[c])]);
    const { rows } = await this.query<BlobRow>(query);
    return new Map<string, HeldBlob>(
      rows.map((b) => [blobKey(b.channel, b.version), { base: b.base, data: b.data, stamp: b.stamp }]),
    );
  }

  /** One statement (`query`), failing with a StorageError naming `operation`. */
  private send<R = Record<string, unknown>>(
    operation: string,
    statement: pg.QueryConfig | string,
    values?: unknown[],
  ): Promise<{ rows: R[]; rowCount: number }> {
    return this.database.guard(operation, () => this.query<R>(statement, values));
  }

  /**
   * One statement on a pooled connection (pool.ts, `statementOn`): `pool.query`'s result, for
   * less CPU; a run's saves and claims with other threads' (group-commit.ts).
   */
  private query<R = Record<string, unknown>>(
    statement: pg.QueryConfig | string,
    values: unknown[] = [],
  ): Promise<{ rows: R[]; rowCount: number }> {
    const sent: PipelinedStatement =
      typeof statement === "string" ? { text: statement, values } : { ...statement, values: statement.values ?? [] };
    return (this.commits?.send(sent) ?? statementOn(this.pool, sent)) as Promise<{ rows: R[]; rowCount: number }>;
  }
}
