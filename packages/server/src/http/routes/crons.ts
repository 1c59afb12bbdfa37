/**
 * Crons, as LangGraph Server has them: a run made on a schedule, on a thread or (stateless) on
 * a new thread each time. The runs are made by every process's sweep (crons/sweeper.ts).
 */
import { Hono } from "hono";
import { resolveAssistant } from "../../assistants/defaults.js";
import type { ServerContext } from "../../context.js";
import { checkSchedule, nextRun } from "../../crons/schedule.js";
import { NotFoundError } from "../../errors.js";
import { type CronRecord, deleteCron, editCron, findCrons, insertCron, newCronId } from "../../store/crons.js";
import type { AppEnv } from "../env.js";
import { CRON_PAYLOAD_FIELDS, CronCountBody, CronCreateBody, CronSearchBody, CronUpdateBody } from "../schemas.js";
import { CRON_FIELDS, cut, selection } from "../select.js";
import { body } from "../validate.js";

/** The run fields of a request body, over `base` (an update's), as a cron's payload keeps them (unset ones left out). */
function payloadOf(req: Record<string, unknown>, base: Record<string, unknown> = {}): Record<string, unknown> {
  const payload = { ...base };
  for (const key of CRON_PAYLOAD_FIELDS) if (req[key] !== undefined && req[key] !== null) payload[key] = req[key];
  return payload;
}

export function cronRoutes(ctx: ServerContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const db = () => ctx.store.db;

  async function create(req: CronCreateBody, threadId: string | null, identity: string): Promise<CronRecord> {
    checkSchedule(req.schedule, req.timezone);
    const assistant = await resolveAssistant(ctx, req.assistant_id);
    const now = new Date(ctx.now()).toISOString();
    const cron: CronRecord = {
      cron_id: newCronId(),
      assistant_id: assistant.assistant_id,
      thread_id: threadId,
      user_id: identity,
      schedule: req.schedule,
      timezone: req.timezone ?? null,
      end_time: req.end_time ?? null,
      enabled: req.enabled ?? true,
      // Only a stateless cron's threads come and go.
      on_run_completed: threadId ? null : (req.on_run_completed ?? "delete"),
      payload: payloadOf(req),
      metadata: req.metadata ?? {},
      created_at: now,
      updated_at: now,
      next_run_date: nextRun(req.schedule, req.timezone, ctx.now(), req.end_time),
    };
    if (threadId === null) await insertCron(db(), cron);
    else
      await ctx.store.tx(async (tx) => {
        // Under the thread's lock: a thread deleted meanwhile (its crons with it) gets none after.
        if (!(await tx.getThread(threadId, { values: false }))) throw new NotFoundError("thread", threadId);
        await insertCron(tx.db, cron);
      }, threadId);
    return cron;
  }

  app.post("/runs/crons", async (c) => c.json(await create(await body(c, CronCreateBody), null, c.get("identity"))));

  app.post("/threads/:thread_id/runs/crons", async (c) => {
    const req = await body(c, CronCreateBody);
    return c.json(await create(req, c.req.param("thread_id"), c.get("identity")));
  });

  app.patch("/runs/crons/:cron_id", async (c) => {
    const req = await body(c, CronUpdateBody);
    const cronId = c.req.param("cron_id");
    const updated = await editCron(db(), cronId, (cron) => edited(cron, req));
    if (!updated) throw new NotFoundError("cron", cronId);
    return c.json(updated);
  });

  /** The cron with what `req` gives changed, and its next run computed again. */
  function edited(cron: CronRecord, req: CronUpdateBody): CronRecord {
    const schedule = req.schedule ?? cron.schedule;
    const timezone = req.timezone === undefined ? cron.timezone : req.timezone;
    const endTime = req.end_time === undefined ? cron.end_time : req.end_time;
    checkSchedule(schedule, timezone);
    return {
      ...cron,
      schedule,
      timezone,
      end_time: endTime,
      enabled: req.enabled ?? cron.enabled,
      on_run_completed: cron.thread_id ? null : (req.on_run_completed ?? cron.on_run_completed),
      payload: payloadOf(req, cron.payload),
      metadata: req.metadata ?? cron.metadata,
      updated_at: new Date(ctx.now()).toISOString(),
      next_run_date: nextRun(schedule, timezone, ctx.now(), endTime),
    };
  }

  app.delete("/runs/crons/:cron_id", async (c) => {
    if (!(await deleteCron(db(), c.req.param("cron_id")))) throw new NotFoundError("cron", c.req.param("cron_id"));
    return c.body(null, 204);
  });

  app.post("/runs/crons/search", async (c) => {
    const req = await body(c, CronSearchBody);
    const fields = selection(req.select, CRON_FIELDS);
    const found = await findCrons(db(), {
      assistant_id: req.assistant_id ?? undefined,
      thread_id: req.thread_id ?? undefined,
      enabled: req.enabled ?? undefined,
      metadata: req.metadata ?? undefined,
    });
    const key = req.sort_by ?? "created_at";
    const direction = req.sort_order === "asc" ? 1 : -1;
    found.sort(
      (a, b) =>
        direction * String(a[key] ?? "").localeCompare(String(b[key] ?? "")) || a.cron_id.localeCompare(b.cron_id),
    );
    const offset = req.offset ?? 0;
    // Against the time of the answer, a reader tells how far off each next_run_date is.
    const now = fields?.includes("now") ? { now: new Date(ctx.now()).toISOString() } : {};
    return c.json(found.slice(offset, offset + (req.limit ?? 10)).map((cron) => cut({ ...cron, ...now }, fields)));
  });

  app.post("/runs/crons/count", async (c) => {
    const req = await body(c, CronCountBody);
    const found = await findCrons(db(), {
      assistant_id: req.assistant_id ?? undefined,
      thread_id: req.thread_id ?? undefined,
      metadata: req.metadata ?? undefined,
    });
    return c.json(found.length);
  });

  return app;
}
