import {
  type CheckpointTuple,
  type ClaimHolder,
  InvalidSaverOptionError,
  type ThreadClaim,
  ThreadClaimLostError,
  UnsupportedFeatureError,
} from "@interlude/core";
import type * as Kit from "@interlude/core/saver-kit";
import {
  BASE_MISSING,
  everyName,
  KIT_OPTIONS,
  refuseUnknownOptions,
  SaverKit,
  STORED,
  storageError,
} from "@interlude/core/saver-kit";
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

/** Redis expires idle threads itself (PEXPIRE) on its own clock: no `now` or `sweepIntervalMs`. */
export interface RedisSaverOptions extends Omit<Kit.SaverKitOptions, "now" | "sweepIntervalMs"> {
  /** Prefix of every key (default "@interlude/core"). */
  prefix?: string;
  /** LangGraph's TTL, in minutes: `ttlMs` in minutes (give one or the other). */
  defaultTTL?: number;
  /** LangGraph's renewal on reads: only false (a thread's expiry is renewed by its writes). */
  refreshOnRead?: false;
}

const REDIS_OPTIONS = [
  ...KIT_OPTIONS.filter((option) => option !== "now" && option !== "sweepIntervalMs"),
  ...everyName<Exclude<keyof RedisSaverOptions, keyof Kit.SaverKitOptions>>({
    prefix: 1,
    defaultTTL: 1,
    refreshOnRead: 1,
  }),
];

/** The kit's options, LangGraph's TTL config (`{ defaultTTL, refreshOnRead }`) taken as Interlude's. */
function kitOptions(options: RedisSaverOptions): Kit.SaverKitOptions {
  refuseUnknownOptions("RedisSaver", options, REDIS_OPTIONS, {
    now: "Redis expires threads on its own clock",
    sweepIntervalMs: "Redis expires threads itself",
  });
  const { defaultTTL, refreshOnRead, ...rest } = options;
  if (refreshOnRead)
    throw new InvalidSaverOptionError(
      "refreshOnRead",
      refreshOnRead,
      "false or left out: a thread's expiry is renewed by its writes, not its reads",
    );
  if (defaultTTL === undefined) return rest;
  if (rest.ttlMs !== undefined)
    throw new InvalidSaverOptionError(
      "defaultTTL",
      defaultTTL,
      "left out when ttlMs is given (they say the same, in minutes and in ms)",
    );
  if (!(defaultTTL > 0)) throw new InvalidSaverOptionError("defaultTTL", defaultTTL, "a number of minutes above 0");
  return { ...rest, ttlMs: defaultTTL * 60_000 };
}

/**
 * Checkpoints in Redis. Puts are compare-and-swap Lua scripts; a thread's keys share one hash
 * tag; with `ttlMs`, every put renews a PEXPIRE on the thread's keys, so Redis itself drops
 * idle threads (`sweep()` only tidies the thread index).
 */
export class RedisSaver extends SaverKit {
  readonly client: Client;
  private readonly ownsClient: boolean;
  private connecting: Promise<unknown> | undefined;
  private readonly prefix: string;
  /** PEXPIRE of a thread's keys, renewed by every write (0: never). */
  private readonly expiryMs: number;
  /**
   * The owner of each claim this saver holds, which fences its thread's writes (scripts.ts,
   * FENCED): once another owner took the claim, they store nothing and fail with
   * ThreadClaimLostError, even a write the run sent believing its claim held.
   */
  private readonly held = new Map<string, string>();

  /** `RedisSaver.fromUrl("redis://localhost:6379")`: the saver owns (and closes) the client. */
  static fromUrl(url: string, options?: RedisSaverOptions): RedisSaver {
    return new RedisSaver(url, options);
  }

  /** LangGraph's saver on a Redis Cluster: refused, this saver talks to one Redis server. */
  static fromCluster(_rootNodes: unknown, _options?: unknown): never {
    throw new UnsupportedFeatureError(
      "RedisSaver.fromCluster",
      "This saver talks to one Redis server (a primary with its replicas): use RedisSaver.fromUrl(url).",
    );
  }

  constructor(client: Client | string, options: RedisSaverOptions = {}) {
    const kit = kitOptions(options);
    super(kit);
    this.ownsClient = typeof client === "string";
    this.client =
      typeof client === "string"
        ? createClient({ url: client, disableOfflineQueue: true, socket: { reconnectStrategy: giveUpAfterAFewTries } })
        : client;
    if (this.ownsClient) this.client.on("error", () => {}); // reported to the caller of the failing command
    this.prefix = options.prefix ?? "@interlude/core";
    this.expiryMs = kit.ttlMs ?? 0;
  }

  protected loadTuple(threadId: string, ns: string, id: string | undefined): Promise<CheckpointTuple | undefined> {
    return this.guard("getTuple", () => this.load(threadId, ns, id ?? ""));
  }

  override async getHeadId(threadId: string, checkpointNs = ""): Promise<string | undefined> {
    return this.guard(
      "getHeadId",
      async () => (await this.client.hGet(this.keys(threadId).heads, checkpointNs)) ?? undefined,
    );
  }

  protected listCandidates(scope: Kit.ListScope): Promise<Array<Kit.ListCandidate<string | Uint8Array>>> {
    return this.guard("list", async () => {
      const threads =
        scope.threadId !== undefined ? [scope.threadId] : await this.client.zRange(this.threadsKey, 0, -1);
      const found: Array<Kit.ListCandidate<string | Uint8Array>> = [];
      for (const threadId of threads) {
        const keys = this.keys(threadId);
        const namespaces = scope.ns !== undefined ? [scope.ns] : await this.client.sMembers(keys.nss);
        for (const ns of namespaces) {
          const max = scope.before !== undefined ? `(${scope.before}` : "+";
          const limit = scope.limit === undefined ? undefined : { offset: 0, count: scope.limit };
          const ids = await this.client.zRange(keys.idx(ns), max, "-", { BY: "LEX", REV: true, LIMIT: limit });
          const wanted = ids.filter((id) => scope.id === undefined || id === scope.id);
          // With a metadata filter, every candidate's metadata in one round trip per namespace.
          const metadata =
            scope.filtered && wanted.length
              ? await this.client.hmGet(
                  keys.cp,
                  wanted.map((id) => cpField(ns, id, "m")),
                )
              : [];
          wanted.forEach((id, i) => {
            const raw = metadata[i];
            found.push({ threadId, ns, id, metadata: raw ? decodeData(raw) : undefined });
          });
        }
      }
      return found.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    });
  }

  protected async storePut(put: Kit.PreparedPut): Promise<Kit.PutOutcome> {
    const reply = await this.guard("put", () => this.runPut(put));
    if (reply[0] === "FENCED") throw new ThreadClaimLostError(put.threadId);
    if (reply[0] === "NEED_FULL") return BASE_MISSING;
    if (reply[0] === "CONFLICT") return { head: reply[1] || null };
    await this.guard("put", () => this.client.zAdd(this.threadsKey, { score: Date.now(), value: put.threadId }));
    return STORED;
  }

  protected async storeWrites({ threadId, ns, checkpointId, taskId, rows }: Kit.PreparedWrites): Promise<void> {
    const keys = this.keys(threadId);
    const args = [
      keys.base,
      `${writePrefix(ns, checkpointId)}${taskId}\u0000`,
      String(this.expiryMs),
      String(rows.length),
      taskId,
      this.held.get(threadId) ?? "",
    ];
    for (const row of rows) args.push(String(row.idx), row.replace ? "1" : "0", row.channel, encodeData(row.data));
    const reply = await this.guard("putWrites", () => runScript(this.client, PUT_WRITES, [keys.heads], args));
    if (reply === "FENCED") throw new ThreadClaimLostError(threadId);
  }

  protected async removeThread(threadId: string): Promise<void> {
    const keys = this.keys(threadId);
    await this.guard("deleteThread", async () => {
      await runScript(this.client, DELETE_THREAD, [keys.heads], [keys.base]);
      await this.client.zRem(this.threadsKey, threadId);
    });
  }

  /** Every thread: the thread index scores the last put, not the oldest checkpoint. */
  protected threadsCreatedBefore(): Promise<string[]> {
    return this.guard("prune", () => this.client.zRange(this.threadsKey, 0, -1));
  }

  async claimThread(threadId: string, claim: ThreadClaim): Promise<boolean> {
    const key = this.keys(threadId).claim;
    const taken =
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
      )) === 1;
    if (taken) this.held.set(threadId, claim.owner);
    return taken;
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
    if (this.held.get(threadId) === owner) this.held.delete(threadId);
  }

  /** Expiry itself is Redis's (PEXPIRE); this drops expired threads from the thread index. */
  override async sweep(): Promise<number> {
    if (!this.expiryMs) return 0;
    return this.guard("sweep", async () =>
      Number(await this.client.zRemRangeByScore(this.threadsKey, "-inf", Date.now() - this.expiryMs)),
    );
  }

  /** Stops the saver's timers and closes its client if the saver made it. */
  override async close(): Promise<void> {
    await super.close();
    if (this.ownsClient && this.client.isOpen) await this.client.close();
  }

  /** LangGraph's way to close: as `close()`, then the client is closed even if it was passed in, as LangGraph's `end()` quits it. */
  async end(): Promise<void> {
    await this.close();
    if (this.client.isOpen) await this.client.close();
  }

  private get threadsKey(): string {
    return `${this.prefix}:threads`;
  }

  private keys(threadId: string): ThreadKeys {
    return threadKeys(this.prefix, threadId);
  }

  private async runPut(put: Kit.PreparedPut): Promise<string[]> {
    const keys = this.keys(put.threadId);
    const { ns, expectedHead: expected } = put;
    const args = [
      keys.base,
      ns,
      put.id,
      expected === undefined ? "0" : "1",
      expected ?? "",
      `${put.parentId ?? ""}\u0000${put.createdAt}`,
      encodeData(put.record),
      encodeData(put.metadata),
      String(this.expiryMs),
      this.held.get(put.threadId) ?? "",
      String(put.blobs.length),
    ];
    for (const blob of put.blobs) {
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
    const record = this.read(decodeData(rawRecord)) as Kit.CheckpointRecord;
    const channels = Object.keys(record.channel_versions);
    const chainArgs = [keys.blobs];
    for (const channel of channels) chainArgs.push(blobPrefix(ns, channel), String(record.channel_versions[channel]));
    const flat = channels.length
      ? ((await runScript(this.client, BLOB_CHAINS, [keys.blobs], chainArgs)) as string[])
      : [];
    const blobs = new Map<string, Kit.StoredBlob>();
    for (let i = 0; i < flat.length; i += 2) blobs.set(flat[i]!, decodeBlob(flat[i + 1]!));
    const parentId = parentAndCreated.slice(0, parentAndCreated.indexOf("\u0000"));
    const stored = { parentId, record: rawRecord, metadata: decodeData(rawMetadata) };
    const lookup = (c: string, v: number) => blobs.get(`${blobPrefix(ns, c)}${v}`);
    return this.tupleOf(threadId, ns, stored, lookup, this.decodeWrites(rawWrites), record);
  }

  private decodeWrites(raw: string[]): Kit.StoredWrite[] {
    return raw
      .map((value) => {
        // Task ids and channel names never contain \0; the data (last) may.
        const [seq, taskId, channel] = value.split("\u0000", 3) as [string, string, string];
        const data = decodeData(value.slice(seq.length + taskId.length + channel.length + 3));
        return { seq: Number(seq), taskId, channel, data };
      })
      .sort((a, b) => a.seq - b.seq);
  }

  protected pruneThread(threadId: string, request: Kit.PruneRequest): Promise<number> {
    const keys = this.keys(threadId);
    return this.guard("prune", async () => {
      const checkpoints: Array<Kit.PruneCandidate<string | Uint8Array>> = [];
      for (const ns of await this.client.sMembers(keys.nss)) {
        const ids = await this.client.zRange(keys.idx(ns), 0, -1);
        if (ids.length <= 1 && request.after === undefined) continue; // a prune keeps the newest
        const fields = await this.client.hmGet(
          keys.cp,
          ids.flatMap((id) => [cpField(ns, id, "r"), cpField(ns, id, "p")]),
        );
        ids.forEach((id, i) => {
          const [record, parentAndCreated] = [fields[2 * i], fields[2 * i + 1]];
          const createdAt = Number((parentAndCreated ?? "").split("\u0000")[1] ?? 0);
          if (record) checkpoints.push({ ns, id, createdAt, record: decodeData(record) });
        });
      }
      const blobs: Kit.StoredBlobRef[] = [];
      for (const [field, value] of Object.entries(await this.client.hGetAll(keys.blobs))) {
        const [ns, channel, version] = field.split("\u0000") as [string, string, string];
        blobs.push({ ns, channel, version: Number(version), base: decodeBlob(value).base });
      }
      const plan = this.planPrune(request, checkpoints, blobs);
      for (const { ns, checkpoints: doomed, blobs: unread } of plan.namespaces) {
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
        if (unread.length)
          multi.hDel(
            keys.blobs,
            unread.map((blob) => `${blobPrefix(ns, blob.channel)}${blob.version}`),
          );
        if (request.after !== undefined) {
          // A rewind moves the head to the newest checkpoint left (none left: no head).
          const gone = new Set(doomed);
          const head = checkpoints
            .filter((c) => c.ns === ns && !gone.has(c.id))
            .map((c) => c.id)
            .sort()
            .at(-1);
          if (head) multi.hSet(keys.heads, ns, head);
          else multi.hDel(keys.heads, ns);
        }
        await multi.exec();
      }
      return plan.removed;
    });
  }

  private async guard<T>(operation: string, body: () => Promise<T>): Promise<T> {
    try {
      const connecting = this.connected();
      if (connecting) await connecting;
      return await body();
    } catch (error) {
      if (!this.client.isOpen) this.connecting = undefined;
      throw storageError(operation, error);
    }
  }

  /**
   * The connection under way, which every call waits for (undefined once it is made): the client
   * is open as soon as it starts connecting, and a command sent before it is ready fails
   * (`disableOfflineQueue`), so concurrent first calls wait for the one connection.
   */
  private connected(): Promise<unknown> | undefined {
    if (this.connecting || this.client.isOpen) return this.connecting;
    const connecting = this.client.connect().then(() => {
      if (this.connecting === connecting) this.connecting = undefined;
    });
    this.connecting = connecting;
    return connecting;
  }
}

/**
 * A saver must fail (StorageError) rather than queue commands while Redis is away: retry the
 * connection briefly, then give up; the next call connects afresh.
 */
function giveUpAfterAFewTries(retries: number, cause: Error): number | Error {
  return retries >= 4 ? cause : 100 * 2 ** retries;
}
