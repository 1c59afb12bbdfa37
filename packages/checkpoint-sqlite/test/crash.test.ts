import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expectConsistentHistory, freshThreadId, killWriterMidway } from "@interlude/checkpoint-conformance";
import { expectedValues } from "@interlude/checkpoint-conformance/crash-steps";
import { SqliteSaver } from "@interlude/checkpoint-sqlite";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";

const writer = fileURLToPath(new URL("./fixtures/crash-writer.mjs", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "interlude-crash-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("SqliteSaver after a writer is killed mid-write", () => {
  for (const killAfterMs of [0, 3, 11]) {
    it(`keeps the newest checkpoint whole and the history consistent (kill ${killAfterMs} ms after step 20)`, async () => {
      const file = join(dir, `crash-${killAfterMs}.sqlite`);
      const threadId = freshThreadId("crash");
      const acknowledged = await killWriterMidway(writer, [file, threadId], 20, killAfterMs);
      const db = new Database(file);
      expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
      const saver = new SqliteSaver(db);
      await expectConsistentHistory(saver, threadId, acknowledged, expectedValues);
      await saver.close();
      db.close();
    }, 60_000);
  }
});
