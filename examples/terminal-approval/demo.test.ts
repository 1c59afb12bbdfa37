/** The README's main command: two runs of the same command pause, then resume the thread. */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const demo = fileURLToPath(new URL("./demo.mjs", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "interlude-demo-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const run = (...args: string[]) =>
  execFileSync(process.execPath, [demo, "--db", join(dir, "demo.sqlite"), ...args], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });

describe("npm run demo", () => {
  it("first run proposes a plan and pauses; the second run, with an answer, applies it", () => {
    const first = run("--thread", "a");
    expect(first).toContain("Approve this plan?");
    expect(first).toContain("2. Issue a refund of 20 EUR");
    expect(first).toContain("stays paused");
    const second = run("--thread", "a", "--answer", "approve");
    expect(second).toContain("Applied plan:\n1. Check the account");
    expect(run("--thread", "a")).toContain('Thread "a" has finished');
  });

  it("edit and reject", () => {
    expect(run("--thread", "b", "--answer", "edit:1. Refund 25 EUR")).toContain("Applied plan:\n1. Refund 25 EUR");
    expect(run("--thread", "c", "--answer", "reject")).toContain("Rejected: nothing was done.");
  });
});
