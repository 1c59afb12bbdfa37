/** The README's storage examples run against real servers (started by the test setup). */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { testPostgresUrl, testRedisUrl } from "../../test/setup/urls.js";

const dir = mkdtempSync(join(tmpdir(), "interlude-storage-example-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const run = (file: string, args: string[] = [], env: Record<string, string> = {}) =>
  execFileSync(process.execPath, [fileURLToPath(new URL(file, import.meta.url)), ...args], {
    encoding: "utf8",
    env: { ...process.env, ...env },
  });

describe("storage examples", () => {
  it("memory", () => expect(run("./memory.mjs")).toContain("approved: true"));
  it("sqlite", () => expect(run("./sqlite.mjs", [join(dir, "x.sqlite")])).toMatch(/approved: true[\s\S]*pruned: \d+/));
  it("postgres", () =>
    expect(run("./postgres.mjs", [], { DATABASE_URL: testPostgresUrl() })).toMatch(/approved: true[\s\S]*pruned: \d+/));
  it("redis", () => expect(run("./redis.mjs", [], { REDIS_URL: testRedisUrl() })).toContain("approved: true"));
});
