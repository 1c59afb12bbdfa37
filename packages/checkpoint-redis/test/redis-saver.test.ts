import { describeSaverConformance, ThreadWriter } from "@interlude/checkpoint-conformance";
import { RedisSaver } from "@interlude/checkpoint-redis";
import { InvalidSaverOptionError, StorageError, UnsupportedFeatureError } from "@interlude/core";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testRedisUrl } from "../../../test/setup/urls.js";

const url = testRedisUrl();

const admin = createClient({ url });
beforeAll(async () => {
  await admin.connect();
});
afterAll(async () => {
  await admin.close();
});

let users = 0;
/** Each harness connects as its own ACL user, so breakStorage can take its write rights away. */
async function userUrl(): Promise<[string, string]> {
  const user = `harness${process.pid}x${users++}`;
  await admin.sendCommand(["ACL", "SETUSER", user, "on", ">secret", "~*", "&*", "+@all"]);
  return [user, url!.replace("redis://", `redis://${user}:secret@`)];
}

describeSaverConformance(
  "RedisSaver",
  async (options) => {
    const [user, userConnection] = await userUrl();
    const saver = RedisSaver.fromUrl(userConnection, { ttlMs: options?.ttlMs });
    const others: RedisSaver[] = [];
    return {
      saver,
      makeSecondSaver: async () => {
        const other = RedisSaver.fromUrl(url);
        others.push(other);
        return other;
      },
      breakStorage: async () => {
        await admin.sendCommand(["ACL", "SETUSER", user, "-@write"]);
        return {
          async restore() {
            await admin.sendCommand(["ACL", "SETUSER", user, "+@all"]);
          },
        };
      },
      close: async () => {
        for (const other of others) await other.close();
        await saver.close();
        await admin.sendCommand(["ACL", "DELUSER", user]);
      },
    };
  },
  { sharedStorage: true, breakable: true, fencesWrites: true },
);

/** The PTTL (ms) of each key of a thread under `prefix`. */
async function keyExpiries(prefix: string, threadId: string): Promise<number[]> {
  const keys = await admin.keys(`${prefix}:{${threadId}}:*`);
  return Promise.all(keys.map((key) => admin.pTTL(key)));
}

describe("RedisSaver", () => {
  it("lets Redis expire an idle thread's keys on its own", async () => {
    const saver = RedisSaver.fromUrl(url, { ttlMs: 5_000, prefix: "expiry-test" });
    const thread = new ThreadWriter(saver);
    await thread.write({ a: 1 });
    await saver.putWrites(thread.config, [["a", 2]], "task");
    const expiries = await keyExpiries("expiry-test", thread.threadId);
    expect(expiries.length).toBeGreaterThanOrEqual(7);
    for (const ttl of expiries) expect(ttl > 0 && ttl <= 5_000, `PTTL ${ttl}`).toBe(true);
    await saver.close();
  });

  it("takes LangGraph's TTL config: defaultTTL in minutes expires a thread's keys; what it cannot do is refused", async () => {
    const saver = RedisSaver.fromUrl(url, { defaultTTL: 2, prefix: "langgraph-ttl-test" });
    const thread = new ThreadWriter(saver);
    await thread.write({ a: 1 });
    const expiries = await keyExpiries("langgraph-ttl-test", thread.threadId);
    expect(expiries.length).toBeGreaterThan(0);
    for (const ttl of expiries) expect(ttl > 60_000 && ttl <= 120_000, `PTTL ${ttl}`).toBe(true);
    await saver.close();
    expect(() => RedisSaver.fromUrl(url, { defaultTTL: 2, refreshOnRead: true } as never)).toThrow(
      InvalidSaverOptionError,
    );
    expect(() => RedisSaver.fromUrl(url, { defaultTTL: 2, ttlMs: 1_000 })).toThrow(/defaultTTL .*ttlMs/);
    expect(() => RedisSaver.fromUrl(url, { ttlMinutes: 2 } as never)).toThrow(
      expect.objectContaining({ code: "INVALID_SAVER_OPTION", message: expect.stringContaining("ttlMinutes") }),
    );
    expect(() => RedisSaver.fromCluster([{ url }])).toThrow(UnsupportedFeatureError);
  });

  it("end() closes as LangGraph's does: what was saved stays, and the client is closed, even one passed in", async () => {
    const owned = RedisSaver.fromUrl(url, { prefix: "end-test" });
    const thread = new ThreadWriter(owned);
    await thread.write({ a: 1 });
    await owned.end();
    expect(owned.client.isOpen).toBe(false);
    const client = createClient({ url });
    await client.connect();
    const passedIn = new RedisSaver(client, { prefix: "end-test" });
    expect((await passedIn.getTuple(thread.config))?.checkpoint.channel_values).toEqual({ a: 1 });
    await passedIn.end();
    expect(client.isOpen).toBe(false);
  });

  it("says who holds a thread's claim, and lets only the owner it names as replaced be taken over", async () => {
    const saver = RedisSaver.fromUrl(url!);
    const threadId = `holder-${process.pid}-${Date.now()}`;
    expect(await saver.claimHolder(threadId)).toBeUndefined();
    const before = Date.now();
    expect(await saver.claimThread(threadId, { owner: "dead", ttlMs: 60_000 })).toBe(true);
    const holder = await saver.claimHolder(threadId);
    expect(holder?.owner).toBe("dead");
    expect(holder!.expiresAt).toBeGreaterThan(before);
    expect(holder!.expiresAt).toBeLessThanOrEqual(Date.now() + 60_000);
    expect(await saver.claimThread(threadId, { owner: "next", ttlMs: 60_000, replaces: "someone else" })).toBe(false);
    expect(await saver.claimThread(threadId, { owner: "next", ttlMs: 60_000, replaces: "dead" })).toBe(true);
    expect((await saver.claimHolder(threadId))?.owner).toBe("next");
    expect(await saver.claimThread(threadId, { owner: "dead", ttlMs: 60_000 })).toBe(false);
    await saver.releaseThread(threadId, "next");
    expect(await saver.claimHolder(threadId)).toBeUndefined();
    await saver.close();
  });

  it("reports an unreachable server as StorageError", async () => {
    const saver = RedisSaver.fromUrl("redis://127.0.0.1:1");
    const failure = await saver.getTuple({ configurable: { thread_id: "x" } }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StorageError);
    await saver.close().catch(() => {});
  });

  it("serves calls made at once on a new saver, all of them waiting for its one connection", async () => {
    const saver = RedisSaver.fromUrl(url);
    const writer = new ThreadWriter(saver);
    const calls = await Promise.allSettled([
      writer.write({ step: "first" }, {}, { expectedHead: null }),
      ...[1, 2, 3].map((i) => saver.getTuple({ configurable: { thread_id: `never-${process.pid}-${i}` } })),
    ]);
    expect(calls.map((call) => call.status)).toEqual(["fulfilled", "fulfilled", "fulfilled", "fulfilled"]);
    expect((await saver.getTuple({ configurable: { thread_id: writer.threadId } }))?.checkpoint.channel_values).toEqual(
      {
        step: "first",
      },
    );
    await saver.close();
  });
});
