/** The built `interlude` CLI, against a running server and against a local storage file. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../../test/setup/postgres.mjs";
import { FIXTURE_CONFIG, until } from "./helpers.js";
import { type Child, runCli, serve, startCli } from "./processes.js";

let dir: string;
let serverProcess: Child & { match: RegExpMatchArray };
let url: string;
let client: Client;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "interlude-cli-"));
  serverProcess = await startCli(
    ["serve", "--config", FIXTURE_CONFIG, "--port", "0", "--db", join(dir, "served.sqlite")],
    /listening on (http:\/\/\S+)[\s\S]*inbox: /,
    { INTERLUDE_API_KEYS: "k-cli:carol@example.com" },
  );
  url = serverProcess.match[1]!;
  client = new Client({ apiUrl: url, apiKey: "k-cli" });
});
afterAll(async () => {
  await serverProcess?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("against a server (--url)", () => {
  it("serve prints its URL, graphs, storage and auth", () => {
    expect(serverProcess.output()).toMatch(/graphs: +approval, loop/);
    expect(serverProcess.output()).toMatch(/auth: +1 API key/);
  });

  it("threads, pending, resume, history and fork", async () => {
    const thread = await client.threads.create();
    const paused = (await client.runs.wait(thread.thread_id, "approval", {
      input: { request: { service: "cli-svc" } },
    })) as any;
    const interruptId = paused.__interrupt__[0].id;
    const at = ["--url", url, "--api-key", "k-cli"];

    const threads = await runCli(["threads", ...at]);
    expect(threads.stdout).toMatch(new RegExp(`${thread.thread_id}\\s+approval\\s+interrupted\\s+1`));
    expect(threads.stdout.split("\n")[0]).toMatch(/^THREAD\s+GRAPH\s+STATUS\s+PENDING\s+UPDATED$/);

    const pending = await runCli(["pending", ...at, "--graph", "approval"]);
    expect(pending.stdout).toContain(interruptId);
    expect(pending.stdout).toContain('deploy {"service":"cli-svc"');

    const refused = await runCli([
      "resume",
      thread.thread_id,
      ...at,
      "--id",
      interruptId,
      "--value",
      '{"type":"bogus"}',
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/422 INVALID_RESUME/);

    const resumed = await runCli([
      "resume",
      thread.thread_id,
      ...at,
      "--id",
      interruptId,
      "--value",
      '{"type":"accept"}',
      "--reason",
      "ship it",
    ]);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(/Answered\. 2 step\(s\) run\.\nThread \S+ is idle\./);
    expect(resumed.stderr).toMatch(/step 1: review/);

    const history = await runCli(["history", thread.thread_id, ...at]);
    expect(history.stdout).toMatch(/carol@example\.com: \{"type":"accept"\}/);
    const reviewCheckpoint = history.stdout
      .split("\n")
      .find((l) => /\sreview\s/.test(l))!
      .split(/\s+/)[2]!;

    const forked = await runCli([
      "fork",
      thread.thread_id,
      reviewCheckpoint,
      ...at,
      "--values",
      '{"plan":{"action":"deploy","args":{"service":"cli-svc","version":"2.0.0","replicas":1}}}',
      "--as-node",
      "propose",
      "--run",
    ]);
    expect(forked.code).toBe(0);
    expect(forked.stdout).toMatch(/Forked thread/);
    expect(forked.stdout).toMatch(
      /is interrupted\.\n {2}waiting: [0-9a-f]{32} {2}deploy \{"service":"cli-svc","version":"2.0.0"/,
    );
  });

  it("explains a missing or wrong key", async () => {
    const denied = await runCli(["threads", "--url", url]);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toMatch(/401 UNAUTHORIZED/);
  });
});

describe("against a local storage file (--db)", () => {
  it("answers a thread paused by a server that has stopped, with the same commands", async () => {
    const db = join(dir, "local.sqlite");
    const local = await serve(["--config", FIXTURE_CONFIG, "--db", db]);
    const c = new Client({ apiUrl: local.url, apiKey: null });
    const thread = await c.threads.create();
    await c.runs.wait(thread.thread_id, "loop", { input: { rounds: 1 } });
    await local.stop();

    const at = ["--db", db, "--config", FIXTURE_CONFIG];
    const pending = await runCli(["pending", ...at]);
    expect(pending.stdout).toContain(thread.thread_id);
    // Nothing written without counting it here: the recount finds what the counters say.
    expect((await runCli(["recount", "--db", db])).stdout).toBe("1 interrupt(s) pending; the counters said 1.\n");
    const resumed = await runCli(["resume", thread.thread_id, ...at, "--value", '"from the terminal"']);
    expect(resumed.stdout).toMatch(/is idle\./);
    const history = await runCli(["history", thread.thread_id, ...at]);
    expect(history.stdout).toMatch(/cli:\S+: "from the terminal"/);
    expect((await runCli(["threads", ...at, "--status", "idle"])).stdout).toContain(thread.thread_id);
  });

  it("recount says which storage to pass when given none", async () => {
    const result = await runCli(["recount"], { DATABASE_URL: "" });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/--postgres <url>.*--db <file>/);
  });

  it("recount on a PostgreSQL it cannot use says where and why, as a server's start does: no stack, no password", async () => {
    const port = await freePort();
    const refused = await runCli(["recount", "--postgres", `postgres://ann:s3cret@127.0.0.1:${port}/orders`]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      new RegExp(
        `^interlude: Checkpoint storage failed during recount on PostgreSQL at 127\\.0\\.0\\.1:${port}/orders: connect ECONNREFUSED .*Check the connection string`,
      ),
    );
    expect(refused.stderr).not.toMatch(/s3cret|\n\s+at /);
    const notOne = await runCli(["recount", "--postgres", "localhost"]);
    expect(notOne.stderr).toMatch(/is not one: give it as postgres:\/\//);
  });

  it("refuses PostgreSQL-only flags on SQLite and counts that are not counts, before opening anything", async () => {
    const sqlite = ["--config", FIXTURE_CONFIG, "--db", join(dir, "refused.sqlite")];
    const onSqlite = await runCli(["serve", ...sqlite, "--port", "0", "--concurrency", "2"], { DATABASE_URL: "" });
    expect(onSqlite.code).toBe(1);
    expect(onSqlite.stderr).toMatch(/--concurrency applies to PostgreSQL storage only: pass --postgres <url>/);
    // An unreachable server: the flags are refused before any connection is tried.
    const postgres = ["worker", "--config", FIXTURE_CONFIG, "--postgres", "postgres://nobody@127.0.0.1:1/none"];
    const few = await runCli([...postgres, "--postgres-connections", "6"]);
    expect(few.stderr).toMatch(/--postgres-connections 6 is not a whole number of at least 7 \(LISTEN 1, pg-boss 4/);
    const negative = await runCli([...postgres, "--concurrency", "-1"]);
    expect(negative.stderr).toMatch(/--concurrency -1 is not a whole number of runs/);
    const fromEnv = await runCli(postgres, { INTERLUDE_POSTGRES_CONNECTIONS: "lots" });
    expect(fromEnv.stderr).toMatch(/INTERLUDE_POSTGRES_CONNECTIONS=lots is not a whole number/);
    for (const result of [few, negative, fromEnv]) expect(result.code).toBe(1);
  });

  it("serve refuses a config with a custom auth handler, and takes a config's env (API keys too) before starting", async () => {
    const graph = { path: `${fileURLToPath(new URL("./fixtures/env-probe.mjs", import.meta.url))}:probe` };
    const config = (name: string, body: object) => {
      const file = join(dir, name);
      writeFileSync(file, JSON.stringify({ graphs: { probe: graph.path }, ...body }));
      return ["--config", file, "--db", join(dir, `${name}.sqlite`)];
    };
    const refused = await runCli([
      "serve",
      ...config("auth.json", { auth: { path: "./auth.ts:auth" } }),
      "--port",
      "0",
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/custom auth handlers \(`auth\.path`\) are not run by interlude serve/);
    const keyed = await serve(
      config("env.json", {
        graphs: { probe: { ...graph, description: "d" } },
        env: { INTERLUDE_API_KEYS: "k-env:dave" },
      }),
    );
    try {
      await until(async () => /inbox: /.test(keyed.output()));
      expect(keyed.output()).toMatch(/auth: +1 API key/);
      expect(keyed.output()).toMatch(/graph "probe": its description is for LangGraph's MCP endpoint/);
      expect((await fetch(`${keyed.url}/assistants/search`, { method: "POST", body: "{}" })).status).toBe(401);
    } finally {
      await keyed.stop();
    }
  });

  it("names itself as its binary does: interlude", async () => {
    const help = await runCli(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: interlude \[options\] \[command\]/);
    const unknown = await runCli(["thread"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("Did you mean threads?");
    expect(unknown.stderr).toContain("Usage: interlude [options] [command]");
  });

  it("says what to pass when there is no target", async () => {
    const result = await runCli(["threads"], { INTERLUDE_URL: "" });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/--url http:\/\/host:port.*--db path\.sqlite/);
  });
});
