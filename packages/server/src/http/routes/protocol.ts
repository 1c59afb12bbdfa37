/**
 * The thread-centric streaming protocol over HTTP, which `@langchain/react`'s `useStream` (1.x,
 * through the SDK's `ProtocolSseTransportAdapter`) speaks:
 * - `POST /threads/:thread_id/commands` takes one command `{ id, method, params }` and answers
 *   `{ type: "success", id, result }` or `{ type: "error", id, error, message }`: `run.start`
 *   (creates the thread if needed, starts a run), `input.respond` (answers pending interrupts by
 *   id: `Command({ resume: { [interrupt_id]: response } })`), `state.get`;
 * - `POST /threads/:thread_id/stream/events` with `{ channels, since? }` is the thread's event
 *   stream (SSE, `id` = `seq`): the latest run's events replayed, then live (protocol/).
 * The thread's state and history come from the existing `GET /threads/:id/state` and
 * `POST /threads/:id/history`. Runs started here execute in this process (like `runs/stream`);
 * a stream opened on a thread whose run was started otherwise (`runs/stream`, a background run)
 * joins that run when it executes in this process.
 */
import { isResumeMap } from "@interlude/core";
import { Hono } from "hono";
import { z } from "zod";
import type { ServerContext } from "../../context.js";
import { NotFoundError, ServerError } from "../../errors.js";
import { type ProtocolEvent, ThreadStreams } from "../../protocol/thread-streams.js";
import { createRun, type RunRequest } from "../../runs/create.js";
import type { MultitaskStrategy } from "../../store/records.js";
import { awaitAcceptance } from "../acceptance.js";
import type { AppEnv, Ctx } from "../env.js";
import { sseFromEvents, sseText } from "../sse.js";
import { body } from "../validate.js";

const CommandBody = z.object({
  id: z.number().int().nonnegative(),
  method: z.string(),
  params: z.record(z.string(), z.unknown()).optional(),
});
type CommandBody = z.infer<typeof CommandBody>;

const EventsBody = z.object({
  channels: z.array(z.string()),
  namespaces: z.array(z.array(z.string())).optional(),
  depth: z.number().int().nonnegative().optional(),
  since: z.number().int().nonnegative().optional(),
});

/** What a run started through the protocol streams: everything the translator reads. */
const STREAM_MODES = ["values", "updates", "messages-tuple", "tools"];
const STRATEGIES = new Set<MultitaskStrategy>(["reject", "rollback", "interrupt", "enqueue"]);

/** A command the protocol refuses, answered as its error record (the SDK raises it as a ProtocolError). */
class ProtocolCommandError extends Error {
  constructor(
    readonly error: "invalid_argument" | "unknown_command" | "no_such_run" | "not_supported",
    message: string,
  ) {
    super(message);
  }
}

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

/** `input.respond`'s answers as one resume map by interrupt id. */
function resumeOf(params: Record<string, unknown>): Record<string, unknown> {
  const entries = Array.isArray(params.responses) ? params.responses : [params];
  const resume: Record<string, unknown> = {};
  for (const entry of entries) {
    const e = record(entry);
    if (typeof e?.interrupt_id !== "string")
      throw new ProtocolCommandError("invalid_argument", "input.respond needs an interrupt_id for each response.");
    resume[e.interrupt_id] = e.response;
  }
  if (!Object.keys(resume).length) throw new ProtocolCommandError("invalid_argument", "input.respond has no response.");
  return resume;
}

/** The interrupts a resume answers by id (none for a plain answer). */
const answeredIds = (resume: unknown): string[] => (isResumeMap(resume) ? Object.keys(resume) : []);

export function protocolRoutes(ctx: ServerContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const streams = new ThreadStreams();

  /**
   * @param strict an answer naming interrupts that are not waiting is told as the run's `failed`
   *   lifecycle (the SDK's strict resume), not as this command's error
   */
  async function startRun(c: Ctx, threadId: string, req: RunRequest, strict = false): Promise<string> {
    if (!ctx.executesRuns)
      throw new ProtocolCommandError(
        "not_supported",
        "This server executes no runs; send protocol commands to one that does.",
      );
    const received = { ...req, stream_mode: STREAM_MODES, received_at: c.get("receivedAt") };
    const { run, first } = await createRun(ctx, threadId, received, c.get("identity"), ctx.processId);
    const log = ctx.broker.open(run.run_id);
    streams.follow(threadId, run.run_id, log, req.assistant_id, answeredIds(req.command?.resume));
    try {
      if (first) await awaitAcceptance(ctx, run, true);
    } catch (error) {
      const refused =
        error instanceof ServerError && (error.code === "UNKNOWN_INTERRUPT" || error.code === "NOTHING_TO_RESUME");
      if (!strict || !refused) throw error;
    }
    return run.run_id;
  }

  async function command(c: Ctx, threadId: string, cmd: CommandBody): Promise<Record<string, unknown>> {
    const params = cmd.params ?? {};
    const strategy = params.multitaskStrategy as MultitaskStrategy | undefined;
    const common = {
      ...(record(params.config) ? { config: record(params.config) as RunRequest["config"] } : {}),
      ...(record(params.metadata) ? { metadata: record(params.metadata) as RunRequest["metadata"] } : {}),
      multitask_strategy: strategy && STRATEGIES.has(strategy) ? strategy : "enqueue",
    } as const;
    switch (cmd.method) {
      case "run.start": {
        if (typeof params.assistant_id !== "string" || !params.assistant_id)
          throw new ProtocolCommandError("invalid_argument", "run.start needs params.assistant_id.");
        const req: RunRequest = {
          assistant_id: params.assistant_id,
          input: params.input ?? null,
          if_not_exists: "create",
          ...common,
        };
        return { run_id: await startRun(c, threadId, req) };
      }
      case "input.respond": {
        const resume = resumeOf(params);
        const thread = await ctx.store.getThread(threadId, { values: false });
        if (!thread) throw new NotFoundError("thread", threadId);
        const assistantId = thread.assistant_id ?? thread.graph_id;
        if (!assistantId)
          throw new ProtocolCommandError("no_such_run", "The thread has never run; start it with run.start.");
        const extra = {
          ...(params.update ? { update: params.update } : {}),
          ...(params.goto ? { goto: params.goto } : {}),
        };
        const req: RunRequest = { assistant_id: assistantId, command: { resume, ...extra }, ...common };
        await startRun(c, threadId, req, params.strict_resume === true);
        return {};
      }
      case "state.get": {
        const thread = await ctx.store.getThread(threadId);
        if (!thread) throw new NotFoundError("thread", threadId);
        return { values: thread.values ?? {} };
      }
      default:
        throw new ProtocolCommandError(
          "unknown_command",
          `Interlude does not implement the protocol command "${cmd.method}" (it takes run.start, input.respond, state.get).`,
        );
    }
  }

  app.post("/threads/:thread_id/commands", async (c) => {
    const threadId = c.req.param("thread_id");
    const cmd = await body(c, CommandBody);
    const meta = { thread_id: threadId };
    try {
      return c.json({ type: "success", id: cmd.id, result: await command(c, threadId, cmd), meta });
    } catch (error) {
      if (error instanceof ProtocolCommandError)
        return c.json({ type: "error", id: cmd.id, error: error.error, message: error.message, meta });
      if (error instanceof ServerError && error.status < 500)
        return c.json({
          type: "error",
          id: cmd.id,
          error: "invalid_argument",
          message: error.message,
          code: error.code,
          meta,
        });
      throw error;
    }
  });

  /** A run in progress that the protocol did not start (its log is here when it executes here). */
  async function joinActiveRun(threadId: string): Promise<void> {
    const run = (await ctx.store.activeRuns(threadId))[0];
    const log = run && ctx.broker.get(run.run_id);
    if (run && log && !streams.has(threadId))
      streams.follow(threadId, run.run_id, log, run.assistant_id, answeredIds(run.kwargs.command?.resume));
  }

  app.post("/threads/:thread_id/stream/events", async (c) => {
    const threadId = c.req.param("thread_id");
    const filter = await body(c, EventsBody);
    if (!streams.has(threadId)) await joinActiveRun(threadId);
    return sseFromEvents<ProtocolEvent>(
      c,
      (push) => streams.subscribe(threadId, filter, push),
      (event) => sseText(event.method, JSON.stringify(event), event.event_id),
    );
  });

  return app;
}
