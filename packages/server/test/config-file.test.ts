/**
 * A `langgraph.json` as LangGraph's CLI reads it: every key is read, accepted as build-only or
 * refused with what to do instead; none is ignored in silence (a custom auth handler dropped in
 * silence would leave the server open). Its `env` reaches the graphs' modules before they load.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadConfig, openBackend } from "@interlude/server";
import { afterAll, describe, expect, it } from "vitest";

const PROBE = fileURLToPath(new URL("./fixtures/env-probe.json", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "interlude-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let written = 0;
/** A config file of `body` (graphs added unless given), in a directory of its own. */
function configFile(body: Record<string, unknown>): string {
  const file = join(dir, `langgraph-${++written}.json`);
  writeFileSync(file, JSON.stringify({ graphs: { g: "./g.mjs:graph" }, ...body }));
  return file;
}

describe("a langgraph.json's keys", () => {
  it("build-only keys and $schema are accepted; a graph may be { path, description }, whose description is reported unused", () => {
    const config = loadConfig(PROBE);
    expect(config.graphs.probe).toEqual({
      path: fileURLToPath(new URL("./fixtures/env-probe.mjs", import.meta.url)),
      exportName: "probe",
    });
    expect(config.warnings).toEqual([expect.stringMatching(/^graph "probe": its description is for LangGraph's MCP/)]);
    expect(config.apiKeys).toEqual({});
  });

  it.each([
    [{ auth: { path: "./auth.ts:auth" } }, /auth\.path.*let every request in.*auth\.api_keys/],
    [{ auth: { api_keys: { k: "alice" }, openapi: {} } }, /auth\.openapi.*custom auth handler/],
    [{ http: { cors: { allow_origins: ["*"] } } }, /`http`.*reverse proxy/],
    [{ store: { index: { dims: 3 } } }, /semantic index and TTLs.*\/store API/],
    [{ checkpointer: { ttl: { strategy: "delete", default_ttl: 60, sweep: 1 } } }, /checkpointer\.ttl: "sweep" is not/],
    [{ checkpointer: { ttl: { strategy: "archive" } } }, /checkpointer\.ttl\.strategy/],
    [{ checkpointer: { serde: "pickle" } }, /checkpointer: "serde" is not/],
    [{ ui: { agent: "./ui.tsx" } }, /generative UI/],
    [{ webhooks: {} }, /webhooks.*runs\/wait/],
    [{ node_loader: "./loader.mjs" }, /module loaders/],
    [{ env: ["OPENAI_API_KEY"] }, /`env` as a list.*\.env file/],
    [{ grpahs: {} }, /"grpahs" is not a langgraph\.json key interlude serve knows/],
    [{ auth: { api_key: { k: "alice" } } }, /auth: "api_key" is not a langgraph\.json key/],
    [{ graphs: { g: { path: "./g.mjs:graph", title: "G" } } }, /graphs\.g/],
  ])("%j is refused with CONFIG_INVALID, saying what to do", (body, message) => {
    const file = configFile(body);
    let thrown: unknown;
    try {
      loadConfig(file);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ code: "CONFIG_INVALID", message: expect.stringMatching(message) });
    expect((thrown as Error).message).toContain(file);
  });
});

describe("a langgraph.json's checkpointer.ttl", () => {
  it("gives threads created without a TTL the default, swept every sweep_interval_minutes (5 without)", () => {
    const ttl = (body: object) => loadConfig(configFile({ checkpointer: { ttl: body } })).threadTtl;
    expect(ttl({ strategy: "keep_latest", default_ttl: 30, sweep_interval_minutes: 1 })).toEqual({
      default: { strategy: "keep_latest", ms: 30 * 60_000 },
      sweepMs: 60_000,
    });
    expect(ttl({ default_ttl: 0.5 })).toEqual({ default: { strategy: "delete", ms: 30_000 }, sweepMs: 300_000 });
    expect(ttl({ sweep_interval_minutes: 2 })).toEqual({ sweepMs: 120_000 });
    expect(loadConfig(configFile({})).threadTtl).toBeUndefined();
  });
});

describe("a langgraph.json's env", () => {
  it("a .env file beside it is read; the graphs' modules see it as they load, and the process's own variables win", async () => {
    process.env.INTERLUDE_PROBE_OWN = "the process's own";
    delete process.env.INTERLUDE_PROBE_FROM_FILE;
    const config = loadConfig(PROBE);
    expect(config.env).toEqual({
      INTERLUDE_PROBE_FROM_FILE: "from the file",
      INTERLUDE_PROBE_OWN: "from the file too",
    });
    const backend = await openBackend({ config, sqlitePath: ":memory:" });
    try {
      const result = await backend.ctx.graphs.get("probe")!.invoke({}, { configurable: { thread_id: "t" } });
      expect(result.seen).toEqual({ fromFile: "from the file", own: "the process's own" });
      expect(process.env.INTERLUDE_PROBE_FROM_FILE).toBe("from the file");
    } finally {
      await backend.close();
      delete process.env.INTERLUDE_PROBE_FROM_FILE;
      delete process.env.INTERLUDE_PROBE_OWN;
    }
  });

  it("given as an object, it is taken as it is; a file that is not there is reported, not fatal", () => {
    expect(loadConfig(configFile({ env: { A: "1", B: "two words" } })).env).toEqual({ A: "1", B: "two words" });
    const missing = loadConfig(configFile({ env: "./missing.env" }));
    expect(missing.env).toEqual({});
    expect(missing.warnings).toEqual([expect.stringMatching(/missing\.env \(the config's "env"\) does not exist/)]);
  });
});
