import { fileURLToPath } from "node:url";
import { expectConsistentHistory, freshThreadId, killWriterMidway } from "@interlude/checkpoint-conformance";
import { expectedValues } from "@interlude/checkpoint-conformance/crash-steps";
import { PostgresSaver } from "@interlude/checkpoint-postgres";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { testPostgresUrl } from "../../../test/setup/urls.js";

const url = testPostgresUrl();
const writer = fileURLToPath(new URL("./fixtures/crash-writer.mjs", import.meta.url));

/**
 * A killed client's last statement (a put is one statement) still runs to its end on the server,
 * and may commit after the kill: the history is read once the writer's backends are gone.
 */
async function writerGone(applicationName: string): Promise<void> {
  const probe = new pg.Client({ connectionString: url });
  await probe.connect();
  try {
    const sql = "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1";
    await expect
      .poll(async () => (await probe.query<{ n: number }>(sql, [applicationName])).rows[0]!.n, { timeout: 20_000 })
      .toBe(0);
  } finally {
    await probe.end();
  }
}

describe("PostgresSaver after a writer is killed mid-write", () => {
  for (const killAfterMs of [0, 3, 11]) {
    it(`keeps the newest checkpoint whole and the history consistent (kill ${killAfterMs} ms after step 20)`, async () => {
      const threadId = freshThreadId("crash");
      const applicationName = `crash-writer-${killAfterMs}-${process.pid}`;
      const writerUrl = new URL(url);
      writerUrl.searchParams.set("application_name", applicationName);
      const acknowledged = await killWriterMidway(writer, [writerUrl.toString(), threadId], 20, killAfterMs);
      await writerGone(applicationName);
      const saver = PostgresSaver.fromConnString(url);
      await expectConsistentHistory(saver, threadId, acknowledged, expectedValues);
      await saver.close();
    }, 60_000);
  }
});
