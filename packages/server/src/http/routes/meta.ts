/**
 * The server itself: `GET /ok`, which a load balancer or an orchestrator's probe calls (with
 * `check_db=1`, the database must answer too: a process that lost its database is taken out of
 * rotation instead of failing every request), and `GET /info`.
 */
import { Hono } from "hono";
import type { ServerContext } from "../../context.js";
import { DatabaseUnansweredError } from "../../errors.js";
import type { AppEnv } from "../env.js";
import { HealthQuery } from "../schemas.js";
import { query } from "../validate.js";

/** How long `check_db` waits for the database: a probe must get an answer, not hang with it. */
const CHECK_DB_MS = 5_000;

/** One trivial statement through the store's connections; rejects with STORAGE_FAILED if it fails or takes too long. */
async function checkDatabase(ctx: ServerContext): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_DB_MS / 1000} s`)), CHECK_DB_MS);
  });
  try {
    await Promise.race([ctx.store.db.all("SELECT 1"), late]);
  } catch (error) {
    throw new DatabaseUnansweredError("the health check", error);
  } finally {
    clearTimeout(timer);
  }
}

export function metaRoutes(ctx: ServerContext, version: string) {
  const app = new Hono<AppEnv>();
  app.get("/ok", async (c) => {
    const { check_db } = query(c, HealthQuery);
    if (check_db === "1" || check_db === "true") await checkDatabase(ctx);
    return c.json({ ok: true });
  });
  app.get("/info", (c) =>
    c.json({ version, flags: { assistants: true, crons: true, langsmith: false }, graphs: ctx.graphs.ids() }),
  );
  return app;
}
