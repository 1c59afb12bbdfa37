/**
 * The inbox: every pending interrupt across threads and graphs, live events as they come and
 * go, and answering one by id. Shapes documented in API.md; the inbox web app relies on them.
 */
import { Hono } from "hono";
import type { ServerContext } from "../../context.js";
import type { InterruptCreatedEvent, InterruptResolvedEvent } from "../../events/bus.js";
import { createRun } from "../../runs/create.js";
import type { PendingInterrupt } from "../../store/records.js";
import { awaitAcceptance } from "../acceptance.js";
import type { AppEnv } from "../env.js";
import { InboxAnswerBody, InboxQuery } from "../schemas.js";
import { sseFromEvents, sseText } from "../sse.js";
import { body, query } from "../validate.js";
import { requireThread } from "./threads.js";

/** What `GET /inbox/events` sends, each as an SSE event named by its type. */
type InboxEvent = InterruptCreatedEvent | InterruptResolvedEvent | { type: "resync"; at: string };

const KEEPALIVE_MS = 15_000;

function inboxItem(p: PendingInterrupt, now = Date.now()): Record<string, unknown> {
  return {
    thread_id: p.thread_id,
    graph_id: p.graph_id,
    assistant_id: p.assistant_id,
    interrupt_id: p.interrupt_id,
    value: p.value,
    response_schema: p.response_schema,
    ns: p.ns,
    created_at: p.created_at,
    age_seconds: Math.max(0, Math.round((now - Date.parse(p.created_at)) / 1000)),
    deadline_at: p.deadline_at,
  };
}

export function inboxRoutes(ctx: ServerContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get("/inbox/interrupts", async (c) => {
    const q = query(c, InboxQuery);
    const now = ctx.now();
    const { items, total } = await ctx.store.pending(q, now);
    return c.json({ items: items.map((p) => inboxItem(p, now)), total });
  });

  app.get("/inbox/events", async (c) => {
    // Interrupts of every process are heard from before `ready` on (so that a client reading the
    // list after it misses none) until the stream ends.
    const unwatch = await ctx.bus.watch();
    return sseFromEvents<InboxEvent>(
      c,
      (push) => {
        const unsubscribe = ctx.bus.subscribe((event) => {
          if (event.type === "interrupt.created" || event.type === "interrupt.resolved") push(event);
          // Events of other processes were lost while this one's LISTEN connection was away: as
          // after `ready`, the client lists the inbox again and misses nothing from then on.
          else if (event.type === "bus.reconnected") push({ type: "resync", at: new Date().toISOString() });
        });
        return () => (unsubscribe(), unwatch());
      },
      ({ type, ...data }) => sseText(type, JSON.stringify(data)),
      { opening: sseText("ready", JSON.stringify({ at: new Date().toISOString() })), keepaliveMs: KEEPALIVE_MS },
    );
  });

  app.post("/inbox/answer", async (c) => {
    const req = await body(c, InboxAnswerBody);
    const thread = await requireThread(ctx, req.thread_id);
    const { run, first } = await createRun(
      ctx,
      thread.thread_id,
      {
        assistant_id: thread.assistant_id ?? thread.graph_id ?? "",
        command: { resume: { [req.interrupt_id]: req.answer }, reason: req.reason },
        multitask_strategy: "enqueue",
      },
      c.get("identity"),
      ctx.executesRuns ? ctx.processId : null,
    );
    if (first) await awaitAcceptance(ctx, run, ctx.executesRuns || ctx.dispatcher.local);
    const answer = await ctx.store.answer(thread.thread_id, req.interrupt_id);
    return c.json(
      {
        thread_id: thread.thread_id,
        interrupt_id: req.interrupt_id,
        run_id: run.run_id,
        by: c.get("identity"),
        answer: req.answer,
        at: answer?.at ?? run.created_at,
        status: first ? "accepted" : "queued",
      },
      first ? 200 : 202,
    );
  });

  return app;
}
