/** Scripts run in child processes (another process reading the same SQLite file), in a scratch directory removed after the file's tests. */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll } from "vitest";

export function childProcesses(prefix: string) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return {
    /** A SQLite file's path in the scratch directory, as a JS string literal for the scripts. */
    sqliteFile: (name: string) => JSON.stringify(join(dir, name)),
    /** Runs an ES module script in a new Node process (resolving packages from here); its stdout. */
    node: (script: string) =>
      execFileSync(process.execPath, ["--input-type=module", "-e", script], {
        cwd: fileURLToPath(new URL(".", import.meta.url)),
        encoding: "utf8",
      }),
  };
}
