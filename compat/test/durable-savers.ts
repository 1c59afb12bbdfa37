/**
 * The compat scenarios on Interlude's durable savers. With `COMPAT_SAVER` set to one of
 * `SAVER_KINDS`, the Interlude runtime the scenarios are given makes a fresh saver of that kind,
 * as empty as a new MemorySaver, wherever a scenario makes `new MemorySaver()`; LangGraph.js keeps
 * its MemorySaver. The scenarios then check that each saver a deployment uses behaves as
 * LangGraph.js does in memory. The root vitest config runs the compat files once per kind.
 *
 * The saver is a subclass named MemorySaver, so that scenarios which subclass MemorySaver (to
 * fail or slow a call) subclass the durable saver, and a config holding one prints the same.
 */
import type pg from "pg";
import { afterAll } from "vitest";
import { testRedisUrl } from "../../test/setup/urls.js";
import { closeSaver, freshName, IDLE_MS, poolOn } from "./saver-storage.js";

const SAVER_KINDS = ["sqlite", "postgres", "redis"] as const;
type SaverKind = (typeof SAVER_KINDS)[number];

/** `lib` with its MemorySaver replaced by a saver of `kind`, each on storage of its own. */
export async function onDurableSaver<T extends Record<string, unknown>>(lib: T, kind: string): Promise<T> {
  if (!(SAVER_KINDS as readonly string[]).includes(kind))
    throw new Error(`COMPAT_SAVER=${kind}: expected one of ${SAVER_KINDS.join(", ")}`);
  return { ...lib, MemorySaver: await durableSaverClass(kind as SaverKind) };
}

/**
 * Every saver made for this file's scenarios, closed after them with its pool or client: scenarios
 * leave their savers open, and a test worker goes on to other files.
 */
const opened: unknown[] = [];
afterAll(async () => {
  await Promise.all(opened.map((saver) => closeSaver(saver).catch(() => undefined)));
});

/** Imported only here: the scenarios' default pass loads no driver. */
async function durableSaverClass(kind: SaverKind) {
  switch (kind) {
    case "sqlite": {
      const { SqliteSaver } = await import("@interlude/checkpoint-sqlite");
      return class MemorySaver extends SqliteSaver {
        constructor() {
          super(":memory:");
          opened.push(this);
        }
      };
    }
    case "postgres": {
      const { PostgresSaver } = await import("@interlude/checkpoint-postgres");
      const stock = new SchemaStock((pool) => new PostgresSaver(pool).setup());
      afterAll(() => stock.close());
      await stock.fill();
      return class MemorySaver extends PostgresSaver {
        constructor() {
          const { pool, setUp } = stock.take();
          super(pool, { autoSetup: !setUp });
          opened.push(this);
        }
      };
    }
    case "redis": {
      const { RedisSaver } = await import("@interlude/checkpoint-redis");
      const url = testRedisUrl();
      return class MemorySaver extends RedisSaver {
        constructor() {
          super(url, { prefix: freshName() });
          opened.push(this);
        }
      };
    }
  }
}

/**
 * Pools on schemas with the saver's tables made, a few ahead of the scenarios that use them, each
 * holding its connection: a scenario makes its saver and runs at once, and connecting (~15 ms
 * here) then migrating a fresh schema (~40 ms) on its first call would shift the timings that
 * scenarios of aborts and slow saves depend on, as a deployment's warm pool does not.
 */
class SchemaStock {
  private readonly ready: pg.Pool[] = [];
  private filling: Promise<void> | undefined;

  constructor(
    private readonly setUp: (pool: pg.Pool) => Promise<void>,
    private size = 4,
  ) {}

  /** Makes pools until `size` are ready. */
  fill(): Promise<void> {
    this.filling ??= (async () => {
      while (this.ready.length < this.size) {
        // Kept connected while stocked (no idle timeout until taken).
        const pool = poolOn(freshName(), 0);
        await this.setUp(pool);
        this.ready.push(pool);
      }
    })().finally(() => (this.filling = undefined));
    return this.filling;
  }

  /** Ends the pools not taken, once a refill under way is done. */
  async close(): Promise<void> {
    this.size = 0;
    await this.filling?.catch(() => undefined);
    await Promise.all(this.ready.splice(0).map((pool) => pool.end()));
  }

  /** A ready pool, or one on a fresh schema its saver sets up if none is (a burst of savers). */
  take(): { pool: pg.Pool; setUp: boolean } {
    const pool = this.ready.shift();
    // A failed refill leaves the next savers to set up their own schemas, where it shows.
    this.fill().catch(() => undefined);
    if (!pool) return { pool: poolOn(freshName()), setUp: false };
    // From now on its connections close once idle, as every saver's pool does (saver-storage.ts).
    pool.options.idleTimeoutMillis = IDLE_MS;
    return { pool, setUp: true };
  }
}
