// Two servers on one PostgreSQL database; the reviewer's inbox open on one of them. A question
// asked through the other reaches the inbox by a notification the first server LISTENs for.
// When that server's LISTEN connection is cut (a database restart, a fail-over) a question asked
// meanwhile is never notified; once the connection is back the server tells its inbox streams to
// `resync`, and the inbox lists again: the question shows without a reload.

import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { testPostgresUrl } from "../../../test/setup/urls.js";
import { apiAs, type Browser, openBrowser, startServer, type TestServer } from "./e2e/harness";
import { openInbox, optionId, pendingItem } from "./e2e/steps";

const database = `interlude_inbox_resync_${process.pid}_${Date.now() % 1e6}`;
let admin: pg.Client;
let sql: pg.Client;
let shown: TestServer;
let other: TestServer;
let alice: Browser;

/** The application name of the one server's LISTEN connection (the bus names it after its process). */
let listener: string;

beforeAll(async () => {
  admin = new pg.Client({ connectionString: testPostgresUrl() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  const url = new URL(testPostgresUrl());
  url.pathname = `/${database}`;
  sql = new pg.Client({ connectionString: url.toString() });
  await sql.connect();
  shown = await startServer({ postgres: url.toString() });
  const names = await sql.query(
    "SELECT application_name FROM pg_stat_activity WHERE application_name ~ '^interlude [^ ]+$'",
  );
  expect(names.rowCount).toBe(1);
  listener = names.rows[0].application_name;
  other = await startServer({ postgres: url.toString() });
  alice = await openBrowser(shown.url, "alice");
}, 60_000);
afterAll(async () => {
  await alice?.close();
  await Promise.all([shown?.stop(), other?.stop()]);
  await sql?.end();
  await admin?.end();
});

/** When the database's clock says it is now, and when the server's current LISTEN connection began (once there is one). */
async function listenerSince(): Promise<Date | undefined> {
  const { rows } = await sql.query("SELECT backend_start FROM pg_stat_activity WHERE application_name = $1", [
    listener,
  ]);
  return rows[0]?.backend_start;
}

it("a question asked through another server while this one's LISTEN was cut shows once it reconnects", async () => {
  const page = alice.page;
  await openInbox(page);
  await page.locator(".live.on").waitFor();
  const api = apiAs(other.url, "alice");
  // The question must be committed while no LISTEN of this server could hear it: tried again in
  // the rare case its connection came back first.
  for (let attempt = 1; ; attempt++) {
    const cut = await sql.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", [
      listener,
    ]);
    expect(cut.rowCount).toBe(1);
    const threadId = await api.startThread("email", { to: `resync${attempt}@example.com`, subject: "Missed" });
    const asked = (await sql.query("SELECT clock_timestamp() AS at")).rows[0].at as Date;
    let since: Date | undefined;
    while (!(since = await listenerSince())) await new Promise((resolve) => setTimeout(resolve, 20));
    if (since <= asked && attempt < 3) continue;
    expect(since > asked).toBe(true);
    const item = await pendingItem(api, threadId);
    await page.locator(optionId(threadId, item.interrupt_id)).waitFor({ timeout: 8_000 });
    return;
  }
}, 60_000);
