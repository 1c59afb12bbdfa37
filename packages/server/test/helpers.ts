/** Test servers on loopback (random free ports), and small helpers around the SDK. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadConfig, type RunningServer, type ServeOptions, startServer } from "@interlude/server";
import { Client } from "@langchain/langgraph-sdk";
// The CLI's SSE reader, so the tests read events exactly as the CLI does.
import { sseEvents } from "../dist/cli/sse.js";
import { sweepCrons } from "../dist/crons/sweeper.js";
import type { AssistantRecord } from "../dist/store/records.js";

export const FIXTURE_CONFIG = fileURLToPath(new URL("./fixtures/langgraph.json", import.meta.url));

/** An SDK client of the server at `url`, without the SDK's retries: a failure shows at once. */
export const clientOf = (url: string, apiKey?: string): Client =>
  new Client({ apiUrl: url, apiKey: apiKey ?? null, callerOptions: { maxRetries: 0 } });

/**
 * A server clock the test moves instead of waiting (give `now` to testServer, with a
 * `cronSweepMs` that never comes in a test), and crons swept by the test with it moved.
 */
export function movedClock() {
  /** How far the server's clock is ahead of the real one. */
  let ahead = 0;
  return {
    now: () => Date.now() + ahead,
    /** One sweep of `server`'s crons (or `sweeps` at once) with the clock `ms` ahead of now. */
    async sweepCronsAhead(server: TestServer, ms: number, sweeps = 1): Promise<void> {
      ahead = ms;
      try {
        await Promise.all(Array.from({ length: sweeps }, () => sweepCrons(server.backend.ctx)));
      } finally {
        ahead = 0;
      }
    },
  };
}

export interface TestServer extends RunningServer {
  client(apiKey?: string): Client;
  dispose(): Promise<void>;
}

export async function testServer(options: Partial<ServeOptions> = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), "interlude-server-test-"));
  const server = await startServer({
    config: loadConfig(FIXTURE_CONFIG),
    sqlitePath: join(dir, "db.sqlite"),
    host: "127.0.0.1",
    port: 0,
    ...options,
  });
  return {
    ...server,
    client: (apiKey?: string) => clientOf(server.url, apiKey),
    async dispose() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of stream) out.push(item);
  return out;
}

export async function json(
  url: string,
  init: RequestInit & { apiKey?: string } = {},
): Promise<{ status: number; body: any }> {
  const headers = new Headers(init.headers);
  if (init.apiKey) headers.set("x-api-key", init.apiKey);
  if (init.body && !headers.has("content-type")) headers.set("content-type", "application/json");
  const response = await fetch(url, { ...init, headers });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

/**
 * Resolves with `probe()`'s first truthy value: for state another process (or the server's own
 * timers) changes, with no event a test can subscribe to. Checks again every 20 ms.
 */
export async function until<T>(probe: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The run read at `runUrl` (`GET /threads/:id/runs/:run_id`) once it has ended: neither pending nor running. */
export function runEnded(runUrl: string, timeoutMs?: number): Promise<{ status: string; [field: string]: unknown }> {
  return until(async () => {
    const { status, body } = await json(runUrl);
    return status === 200 && body.status !== "pending" && body.status !== "running" && body;
  }, timeoutMs);
}

export interface SseEvent {
  event: string;
  data: any;
}

/** Follows an SSE endpoint; `events` fills as they arrive; `close()` stops. */
export async function followSse(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ events: SseEvent[]; close(): void; status: number }> {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  const events: SseEvent[] = [];
  if (response.ok) {
    void (async () => {
      try {
        for await (const event of sseEvents(response)) events.push(event);
      } catch {
        // closed
      }
    })();
  }
  return { events, status: response.status, close: () => controller.abort() };
}

/** An assistant's record as the store keeps it, made `created` seconds into 2026. */
export function assistantRecord(id: string, name: string, graph: string, created = 0): AssistantRecord {
  const at = new Date(Date.UTC(2026, 0, 1, 0, 0, created)).toISOString();
  return {
    assistant_id: id,
    graph_id: graph,
    name,
    description: null,
    config: {},
    context: {},
    metadata: {},
    version: 1,
    created_at: at,
    updated_at: at,
  };
}

/**
 * Runs `during` while `table` refuses `event` on the rows `when` holds for (SQL on OLD or NEW),
 * as a fault of the database would refuse it: a trigger, on SQLite or PostgreSQL, dropped after.
 * `sqlstate` (PostgreSQL): the refusal's code, e.g. 57P01, which PostgreSQL answers when it
 * terminates a connection (default: P0001, a plain raised exception).
 */
export async function whileRefusing<T>(
  db: { dialect: "sqlite" | "postgres"; run(sql: string): Promise<number> },
  refusal: { event: "INSERT" | "UPDATE" | "DELETE"; table: string; when?: string; sqlstate?: string },
  during: () => Promise<T>,
): Promise<T> {
  const { event, table, when = "TRUE", sqlstate = "P0001" } = refusal;
  const name = `refuse_${event.toLowerCase()}_${table}`;
  if (db.dialect === "postgres") {
    await db.run(
      `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused by the test' USING ERRCODE = '${sqlstate}'; END $$`,
    );
    await db.run(
      `CREATE TRIGGER ${name} BEFORE ${event} ON ${table} FOR EACH ROW WHEN (${when}) EXECUTE FUNCTION ${name}()`,
    );
  } else
    await db.run(
      `CREATE TRIGGER ${name} BEFORE ${event} ON ${table} WHEN ${when} BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`,
    );
  try {
    return await during();
  } finally {
    await db.run(db.dialect === "postgres" ? `DROP FUNCTION ${name}() CASCADE` : `DROP TRIGGER ${name}`);
  }
}
