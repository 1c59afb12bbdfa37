import { fileURLToPath } from "node:url";
import { expectConsistentHistory, freshThreadId, killWriterMidway } from "@interlude/checkpoint-conformance";
import { expectedValues } from "@interlude/checkpoint-conformance/crash-steps";
import { PostgresSaver } from "@interlude/checkpoint-postgres";
import { describe, inject, it } from "vitest";

const url = inject("postgresUrl") ?? process.env.INTERLUDE_TEST_POSTGRES_URL;
if (!url) throw new Error("No test PostgreSQL: run `npm test` (scripts/test.sh), which installs and starts one.");
const writer = fileURLToPath(new URL("./fixtures/crash-writer.mjs", import.meta.url));

describe("PostgresSaver after a writer is killed mid-write", () => {
  for (const killAfterMs of [0, 3, 11]) {
    it(`keeps the newest checkpoint whole and the history consistent (kill ${killAfterMs} ms after step 20)`, async () => {
      const threadId = freshThreadId("crash");
      const acknowledged = await killWriterMidway(writer, [url, threadId], 20, killAfterMs);
      const saver = PostgresSaver.fromConnString(url);
      await expectConsistentHistory(saver, threadId, acknowledged, expectedValues);
      await saver.close();
    }, 60_000);
  }
});
