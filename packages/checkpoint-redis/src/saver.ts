import {
  assembleValue,
  BaseCheckpointSaver,
  buildTuple,
  type ChannelVersions,
  type Checkpoint,
  CheckpointConflictError,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointRecord,
  type CheckpointTuple,
  type ClaimHolder,
  checkpointConfig,
  checkpointIdOf,
  checkpointNsOf,
  checkpointsToPrune,
  type DeltaOptions,
  DeltaPlanner,
  defaultSerializer,
  InterludeError,
  listQuery,
  listTuples,
  type PendingWrite,
  type PreparedPut,
  type PruneOptions,
  type PruneRequest,
  type PutOptions,
  preparePut,
  prepareWrites,
  pruneRequest,
  putTarget,
  type RetentionOptions,
  type RunnableConfig,
  reachableBlobs,
  type Serializer,
  StorageError,
  type StoredBlob,
  type ThreadClaim,
  threadIdOf,
  withoutDeltas,
  writesTarget,
} from "@interlude/core";
import { createClient } from "redis";
import {
  blobPrefix,
  cpField,
  decodeBlob,
  decodeData,
  encodeBlob,
  encodeData,
  type ThreadKeys,
  threadKeys,
  writePrefix,
} from "./keys.js";
import { runScript } from "./script-runner.js";
import { BLOB_CHAINS, CLAIM, CLAIM_HOLDER, DELETE_THREAD, LOAD, PUT, PUT_WRITES, RELEASE } from "./scripts.js";

type Client = ReturnType<typeof createClient>;

export interface RedisSaverOptions extends DeltaOptions, Omit<RetentionOptions, "now" | "sweepIntervalMs"> {
  serde?: Serializer;
  /** Prefix of every key (default "@interlude/core"). */
  prefix?: string;
}

/**
 * Checkpoints in Redis. Puts are compare-and-swap Lua scripts; a thread's keys share one hash
 * tag; with `ttlMs`, every put renews a PEXPIRE on the thread's keys, so Redis itself drops
 * idle threads (`sweep()` only tidies the thread index).
 */
export class RedisSaver extends BaseCheckpointSaver {
  readonly client: Client;
  private readonly ownsClient: boolean;
  private connecting: Promise<unknown> | undefined;
  private readonly serde: Serializer;
  private readonly planner: DeltaPlanner;
  private readonly prefix: string;
  private readonly ttlMs: number;

  /** `RedisSaver.fromUrl("redis://localhost:6379")`: the saver owns (and closes) the client. */
  static fromUrl(url: string, options?: RedisSaverOptions): RedisSaver {
    return new RedisSaver(url, options);
  }

  constructor(client: Client | string, options: RedisSaverOptions = {}) {
    super();
    this.ownsClient = typeof client === "string";
    this.client =
      typeof client === "string"
        ? createClient({ url: client, disableOfflineQueue: true, socket: { reconnectStrategy: giveUpAfterAFewTries } })
        : client;
    if (this.ownsClient) this.client.on("error", () => {}); // reported to the caller of the failing command
    this.serde = options.serde ?? defaultSerializer;
    this.planner = new DeltaPlanner(options);
    this.prefix = options.prefix ?? "@interlude/core";
    this.ttlMs = options.ttlMs ?? 0;
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const threadId = threadIdOf(config);
    if (threadId === undefined) return undefined;
    const ns = checkpointNsOf(config);
    return this.guard("getTuple", () => this.load(threadId, ns, checkpointIdOf(config) ?? ""));
  }

  override async getHeadId(threadId: string, checkpointNs = ""): Promise<string | undefined> {
    return this.guard(
      "getHeadId",
      async () => (await this.client.hGet(this.keys(threadId).heads, checkpointNs)) ?? undefined,
    );
  }

  async *list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    const query = listQuery(options);
    const onlyId = checkpointIdOf(config);
    const wantedNs = config.configurable?.checkpoint_ns;
    const threadId = threadIdOf(config);
    const candidates = await this.guard("list", async () => {
      const threads = threadId !== undefined ? [threadId] : await this.client.zRange(this.threadsKey, 0, -1);
      const found: Array<{ threadId: string; ns: string; id: string }> = [];
      for (const thread of threads) {
        const keys = this.keys(thread);
        const namespaces = wantedNs !== undefined ? [wantedNs] : await this.client.sMembers(keys.nss);
        for (const ns of namespaces) {
          const max = query.before !== undefined ? `(${query.before}` : "+";
          const limit = query.filter || !Number.isFinite(query.limit) ? undefined : { offset: 0, count: query.limit };
          const ids = await this.client.zRange(keys.idx(ns), max, "-", { BY: "LEX", REV: true, LIMIT: limit });
          for (const id of ids) if (onlyId === undefined || id === onlyId) found.push({ threadId: thread, ns, id });
        }
      }
      return found.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    });
    yield* listTuples(
      candidates,
      query,
      async ({ threadId: thread, ns, id }) => {
        const raw = await this.guard("list", () => this.client.hGet(this.keys(thread).cp, cpField(ns, id, "m")));
        return raw ? (this.serde.loads(decodeData(raw)) as CheckpointMetadata) : undefined;
      },
      ({ threadId: thread, ns, id }) => this.getTuple(checkpointConfig(thread, ns, id)),
    );
  }

  async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
    options?: PutOptions,
  ): Promise<RunnableConfig> {
    const target = putTarget(config, checkpoint);
    const { threadId, ns } = target;
    let prepared = preparePut(this.serde, this.planner, this.stats, target, checkpoint, metadata, newVersions);
    let reply = await this.guard("put", () => this.runPut(threadId, ns, prepared, options));
    if (reply[0] === "NEED_FULL") {
      prepared = withoutDeltas(prepared, this.serde, this.planner, this.stats, threadId, checkpoint);
      reply = await this.guard("put", () => this.runPut(threadId, ns, prepared, options));
    }
    if (reply[0] === "CONFLICT")
      throw new CheckpointConflictError(threadId, options?.expectedHead ?? null, reply[1] || null);
    prepared.commit();
    await this.guard("put", () => this.client.zAdd(this.threadsKey, { score: Date.now(), value: threadId }));
    return checkpointConfig(threadId, ns, prepared.id);
  }

  async putWrites(
    config: RunnableConfig,
    writes: Array<[channel: string, value: unknown]>,
    taskId: string,
  ): Promise<void> {
    const { threadId, ns, checkpointId } = writesTarget(config);
    const rows = prepareWrites(this.serde, this.stats, taskId, writes);
    const keys = this.keys(threadId);
    const args = [
      keys.base,
      `${writePrefix(ns, checkpointId)}${taskId}\u0000`,
      String(this.ttlMs),
      String(rows.length),
      taskId,
    ];
    for (const row of rows) args.push(String(row.idx), row.replace ? "1" : "0", row.channel, encodeData(row.data));
    await this.guard("putWrites", () => runScript(this.client, PUT_WRITES, [keys.heads], args));
  }

  async deleteThread(threadId: string): Promise<void> {
    const keys = this.keys(threadId);
    await this.guard("deleteThread", async () => {
      await runScript(this.client, DELETE_THREAD, [keys.heads], [keys.base]);
      await this.client.zRem(this.threadsKey, threadId);
    });
    this.planner.forget(threadId);
  }

  async claimThread(threadId: string, claim: ThreadClaim): Promise<boolean> {
    const key = this.keys(threadId).claim;
    return (
      (await this.guard("claimThread", () =>
        runScript(
          this.client,
          CLAIM,
          [key],
          [
            claim.owner,
            String(Math.max(1, Math.ceil(claim.ttlMs))),
            ...(claim.replaces === undefined ? [] : [claim.replaces]),
          ],
        ),
      )) === 1
    );
  }

  /** Lets a claim left by a dead process of this machine be taken over at once (see ThreadClaim.replaces). */
  override async claimHolder(threadId: string): Promise<ClaimHolder | undefined> {
    const key = this.keys(threadId).claim;
    const held = (await this.guard("claimHolder", () => runScript(this.client, CLAIM_HOLDER, [key], []))) as
      | [string, number]
      | null;
    return held ? { owner: held[0], expiresAt: Date.now() + Number(held[1]) } : undefined;
  }

  async releaseThread(threadId: string, owner: string): Promise<void> {
    const key = this.keys(threadId).claim;
    await this.guard("releaseThread", () => runScript(this.client, RELEASE, [key], [owner]));
  }

  override async prune(target: string | PruneOptions, options?: PruneOptions): Promise<number> {
    const request = pruneRequest(target, options, Date.now());
    const threads =
      request.threadId !== undefined
        ? [request.threadId]
        : await this.guard("prune", () => this.client.zRange(this.threadsKey, 0, -1));
    let removed = 0;
    for (const threadId of threads) removed += await this.guard("prune", () => this.pruneThread(threadId, request));
    return removed;
  }

  /** Expiry itself is Redis's (PEXPIRE); this drops expired threads from the thread index. */
  override async sweep(): Promise<number> {
    if (!this.ttlMs) return 0;
    return this.guard("sweep", async () =>
      Number(await this.client.zRemRangeByScore(this.threadsKey, "-inf", Date.now() - this.ttlMs)),
    );
  }

  override async close(): Promise<void> {
    if (this.ownsClient && this.client.isOpen) await this.client.close();
  }

  private get threadsKey(): string {
    return `${this.prefix}:threads`;
  }

  private keys(threadId: string): ThreadKeys {
    return threadKeys(this.prefix, threadId);
  }

  private async runPut(threadId: string, ns: string, prepared: PreparedPut, options?: PutOptions): Promise<string[]> {
    const keys = this.keys(threadId);
    const expected = options?.expectedHead;
    const args = [
      keys.base,
      ns,
      prepared.id,
      expected === undefined ? "0" : "1",
      expected ?? "",
      `${prepared.parentId ?? ""}\u0000${prepared.createdAt}`,
      encodeData(prepared.record),
      encodeData(prepared.metadata),
      String(this.ttlMs),
      String(prepared.blobs.length),
    ];
    for (const blob of prepared.blobs) {
      const prefix = blobPrefix(ns, blob.channel);
      args.push(`${prefix}${blob.version}`, encodeBlob(blob), blob.base === null ? "" : `${prefix}${blob.base}`);
    }
    return (await runScript(this.client, PUT, [keys.heads], args)) as string[];
  }

  private async load(threadId: string, ns: string, id: string): Promise<CheckpointTuple | undefined> {
    const keys = this.keys(threadId);
    const reply = (await runScript(this.client, LOAD, [keys.heads], [keys.base, ns, id])) as string[];
    if (reply.length === 0) return undefined;
    const [_checkpointId, rawRecord, rawMetadata, parentAndCreated, ...rawWrites] = reply as [
      string,
      string,
      string,
      string,
      ...string[],
    ];
    const record = this.serde.loads(decodeData(rawRecord)) as CheckpointRecord;
    const channels = Object.keys(record.channel_versions);
    const chainArgs = [keys.blobs];
    for (const channel of channels) chainArgs.push(blobPrefix(ns, channel), String(record.channel_versions[channel]));
    const flat = channels.length
      ? ((await runScript(this.client, BLOB_CHAINS, [keys.blobs], chainArgs)) as string[])
      : [];
    const blobs = new Map<string, StoredBlob>();
    for (let i = 0; i < flat.length; i += 2) blobs.set(flat[i]!, decodeBlob(flat[i + 1]!));
    const values: Record<string, unknown> = {};
    for (const channel of channels) {
      const version = record.channel_versions[channel]!;
      const loaded = assembleValue(channel, version, (c, v) => blobs.get(`${blobPrefix(ns, c)}${v}`), this.serde);
      if (!loaded?.present) continue;
      values[channel] = loaded.value;
      this.planner.learn(threadId, ns, channel, version, loaded.value);
    }
    const metadata = this.serde.loads(decodeData(rawMetadata)) as CheckpointMetadata;
    const parentId = parentAndCreated.slice(0, parentAndCreated.indexOf("\u0000"));
    return buildTuple({ threadId, ns, record, values, metadata, parentId, writes: this.decodeWrites(rawWrites) });
  }

  private decodeWrites(raw: string[]): PendingWrite[] {
    return raw
      .map((value) => {
        // Task ids and channel names never contain \0; the data (last) may.
        const [seq, taskId, channel] = value.split("\u0000", 3) as [string, string, string];
        return {
          seq: Number(seq),
          taskId,
          channel,
          data: value.slice(seq.length + taskId.length + channel.length + 3),
        };
      })
      .sort((a, b) => a.seq - b.seq)
      .map((w): PendingWrite => [w.taskId, w.channel, this.serde.loads(decodeData(w.data))]);
  }

  private async pruneThread(threadId: string, request: PruneRequest): Promise<number> {
    const keys = this.keys(threadId);
    let removed = 0;
    for (const ns of await this.client.sMembers(keys.nss)) {
      const ids = (await this.client.zRange(keys.idx(ns), 0, -1)).reverse();
      if (ids.length <= 1) continue;
      const meta = await this.client.hmGet(
        keys.cp,
        ids.map((id) => cpField(ns, id, "p")),
      );
      const newestFirst = ids.map((id, i) => ({ id, createdAt: Number((meta[i] ?? "").split("\u0000")[1] ?? 0) }));
      const doomed = checkpointsToPrune(newestFirst, request);
      if (doomed.length === 0) continue;
      const writeFields: string[] = [];
      for (const id of doomed) {
        const prefix = writePrefix(ns, id);
        writeFields.push(
          ...(await this.client.zRange(keys.writeIndex, `[${prefix}`, `[${prefix}\u00ff`, { BY: "LEX" })),
        );
      }
      const multi = this.client.multi();
      multi.hDel(
        keys.cp,
        doomed.flatMap((id) => [cpField(ns, id, "r"), cpField(ns, id, "m"), cpField(ns, id, "p")]),
      );
      multi.zRem(keys.idx(ns), doomed);
      if (writeFields.length) {
        multi.hDel(keys.writes, writeFields);
        multi.zRem(keys.writeIndex, writeFields);
      }
      await multi.exec();
      removed += doomed.length;
      await this.collectBlobs(
        keys,
        ns,
        ids.filter((id) => !doomed.includes(id)),
      );
    }
    return removed;
  }

  /** Deletes the blobs no remaining checkpoint of the namespace reads, directly or as a delta base. */
  private async collectBlobs(keys: ThreadKeys, ns: string, remaining: string[]): Promise<void> {
    const records = await this.client.hmGet(
      keys.cp,
      remaining.map((id) => cpField(ns, id, "r")),
    );
    const refs: Array<[string, number]> = [];
    for (const raw of records) {
      if (!raw) continue;
      const versions = (this.serde.loads(decodeData(raw)) as CheckpointRecord).channel_versions;
      for (const channel of Object.keys(versions)) refs.push([channel, versions[channel]!]);
    }
    const prefix = `${ns}\u0000`;
    const all = await this.client.hGetAll(keys.blobs);
    const bases = new Map<string, number | null>();
    for (const [field, value] of Object.entries(all))
      if (field.startsWith(prefix)) bases.set(field.slice(prefix.length), decodeBlob(value).base);
    const keep = reachableBlobs(refs, (channel, version) => bases.get(`${channel}\u0000${version}`));
    const doomed = [...bases.keys()].filter((key) => !keep.has(key)).map((key) => prefix + key);
    if (doomed.length) await this.client.hDel(keys.blobs, doomed);
  }

  private async guard<T>(operation: string, body: () => Promise<T>): Promise<T> {
    try {
      if (!this.client.isOpen) await (this.connecting ??= this.client.connect());
      return await body();
    } catch (error) {
      if (!this.client.isOpen) this.connecting = undefined;
      throw error instanceof InterludeError ? error : new StorageError(operation, error);
    }
  }
}

/**
 * A saver must fail (StorageError) rather than queue commands while Redis is away: retry the
 * connection briefly, then give up; the next call connects afresh.
 */
function giveUpAfterAFewTries(retries: number, cause: Error): number | Error {
  return retries >= 4 ? cause : 100 * 2 ** retries;
}
