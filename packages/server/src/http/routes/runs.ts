/** Runs on a thread: background, streamed, waited for; listing, joining, cancelling. Stateless runs too. */

import { randomUUID } from "node:crypto";
import { ERROR } from "@interlude/core";
import { Hono } from "hono";
import type { ServerContext } from "../../context.js";
import { ConflictError, NotFoundError, ServerError } from "../../errors.js";
import { cancelRun, waitForRun } from "../../runs/cancel.js";
import { createRun, type RunRequest } from "../../runs/create.js";
import { isActive } from "../../runs/lifecycle.js";
import { errorBody } from "../../runs/outcome.js";
import type { RunRecord, ThreadRecord } from "../../store/records.js";
import { deleteThreadIfThere, deleteWhenRunEnds, retryDeleting } from "../../threads/delete.js";
import { awaitAcceptance } from "../acceptance.js";
import { onClientGone } from "../client-gone.js";
import type { AppEnv, Ctx } from "../env.js";
import {
  CancelQuery,
  isOn,
  JoinQuery,
  JoinStreamQuery,
  RunBatchBody,
  RunBody,
  RunListQuery,
  RunsCancelBody,
  ThreadStreamModes,
} from "../schemas.js";
import { cut, RUN_FIELDS, selectionOf } from "../select.js";
import { type FollowOptions, sseFromLog, sseFromStore, sseOf } from "../sse.js";
import { body, query, queryList } from "../validate.js";
import { requireThread } from "./threads.js";

function runJson(r: RunRecord): Record<string, unknown> {
  const {
    answers: _answers,
    started_at_checkpoint: _started,
    started_mark: _mark,
    started_ms: _startedMs,
    stop_requested: _stop,
    lost: _lost,
    ...kwargs
  } = r.kwargs;
  return {
    run_id: r.run_id,
    thread_id: r.thread_id,
    assistant_id: r.assistant_id,
    created_at: r.created_at,
    updated_at: r.updated_at,
    status: r.status,
    metadata: r.metadata,
    multitask_strategy: r.multitask_strategy,
    kwargs,
  };
}

/** A run's URL path. Percent-encoded: header values are Latin-1, and thread ids are any string. */
function runPath(run: RunRecord): string {
  return `/threads/${encodeURIComponent(run.thread_id)}/runs/${encodeURIComponent(run.run_id)}`;
}

function requestOf(req: RunBody): RunRequest {
  const out: RunRequest = { assistant_id: req.assistant_id };
  const copy = out as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(req)) if (value !== null && value !== undefined) copy[key] = value;
  if (typeof req.stream_mode === "string") out.stream_mode = [req.stream_mode];
  return out;
}

/** What `wait` and `join` return: the thread's values (with `__interrupt__` when paused), or `__error__`. */
async function finalValues(ctx: ServerContext, run: RunRecord | undefined, threadId: string): Promise<unknown> {
  if (run?.status === "error" || run?.status === "timeout") return valuesOf(run, undefined);
  return valuesOf(run, await ctx.store.getThread(threadId));
}

/** `finalValues` of a run whose thread is known (read, or as the run left it). */
function valuesOf(run: RunRecord | undefined, thread: ThreadRecord | undefined): unknown {
  if (run?.status === "error" || run?.status === "timeout") return { [ERROR]: run.error };
  const interrupts = Object.values(thread?.interrupts ?? {}).flat();
  // A workflow (entrypoint()) may return a string, a list...: given back as it is.
  const own = thread?.values as unknown;
  if (!interrupts.length && own !== null && (typeof own !== "object" || Array.isArray(own))) return own;
  const values = { ...(thread?.values ?? {}) } as Record<string, unknown>;
  if (interrupts.length) values.__interrupt__ = interrupts;
  return values;
}

export function runRoutes(ctx: ServerContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const locate = (c: Ctx, run: RunRecord) => c.set("contentLocation", runPath(run));

  async function start(c: Ctx, threadId: string, req: RunRequest, owner: string | null) {
    const received = { ...req, received_at: c.get("receivedAt") };
    const { run, first } = await createRun(ctx, threadId, received, c.get("identity"), owner);
    // Executed here (claimed where it was queued, or queued by its client's server): its log is here.
    if (first) await awaitAcceptance(ctx, run, owner !== null || run.status === "running" || ctx.dispatcher.local);
    locate(c, run);
    return run;
  }

  /** Stream and wait runs execute where their client is connected, unless this server executes no runs. */
  const here = ctx.executesRuns ? ctx.processId : null;

  async function stream(c: Ctx, threadId: string, req: RunRequest) {
    const run = await start(c, threadId, req, here);
    // A stream cut before the run ends is resumed there by the SDK (the run goes on unless on_disconnect is cancel).
    c.set("streamLocation", `${runPath(run)}/stream`);
    if (req.temporary) deleteWhenRunEnds(ctx, run.run_id, threadId);
    const onDisconnect = req.on_disconnect === "cancel" ? () => void cancelIfActive(run.run_id) : undefined;
    if (here === null) return followRun(c, run.run_id, threadId, { onDisconnect });
    // Its log closed without an end (drained by a shutdown, back in the queue): where it goes on.
    const unfinished = () => outcomeEvents(run.run_id, threadId);
    return sseFromLog(c, ctx.broker.open(run.run_id), { onDisconnect, unfinished });
  }

  async function wait(c: Ctx, threadId: string, req: RunRequest) {
    const run = await start(c, threadId, req, here);
    const stopWatching =
      req.on_disconnect === "cancel" ? onClientGone(c, () => void cancelIfActive(run.run_id)) : () => {};
    const finished = await waitForRun(ctx, run.run_id).finally(stopWatching);
    const failure = finished?.error as { code?: unknown; message?: unknown } | null | undefined;
    if (finished?.status === "error" && failure?.code === "STORAGE_FAILED") {
      if (req.temporary) retryDeleting(ctx, threadId)(failure.message);
      throw new ServerError("STORAGE_FAILED", String(failure.message), { run_id: run.run_id });
    }
    // The thread as the run left it, when it ran here (no need to read and parse it back).
    const known = ctx.broker.get(run.run_id)?.outcome?.thread;
    const values = known ? valuesOf(finished, known) : await finalValues(ctx, finished, threadId);
    if (req.temporary) await deleteThreadIfThere(ctx, threadId);
    return c.json(values);
  }

  async function cancelIfActive(runId: string) {
    const run = await ctx.store.getRun(runId);
    if (run && isActive(run.status)) await cancelRun(ctx, run, "interrupt");
  }

  async function requireRun(threadId: string, runId: string): Promise<RunRecord> {
    const run = await ctx.store.getRun(runId);
    if (!run || run.thread_id !== threadId) throw new NotFoundError("run", runId);
    return run;
  }

  /** A stateless run's request: on a thread made for it, deleted once it ends unless kept. */
  const stateless = (req: RunRequest): RunRequest => ({
    ...req,
    if_not_exists: "create",
    temporary: req.on_completion !== "keep",
  });

  app.post("/threads/:thread_id/runs", async (c) =>
    c.json(runJson(await start(c, c.req.param("thread_id"), requestOf(await body(c, RunBody)), null))),
  );
  app.post("/threads/:thread_id/runs/stream", async (c) =>
    stream(c, c.req.param("thread_id"), requestOf(await body(c, RunBody))),
  );
  app.post("/threads/:thread_id/runs/wait", async (c) =>
    wait(c, c.req.param("thread_id"), requestOf(await body(c, RunBody))),
  );

  /** A stateless background run, on a thread of its own deleted once it ends unless kept. */
  async function startStateless(c: Ctx, req: RunRequest): Promise<RunRecord> {
    const threadId = randomUUID();
    const request = stateless(req);
    const run = await start(c, threadId, request, null);
    if (request.temporary) deleteWhenRunEnds(ctx, run.run_id, threadId);
    return run;
  }

  app.post("/runs", async (c) => c.json(runJson(await startStateless(c, requestOf(await body(c, RunBody))))));
  app.post("/runs/batch", async (c) => {
    // All checked before any starts.
    const requests = (await body(c, RunBatchBody)).map(requestOf);
    const runs: RunRecord[] = [];
    for (const req of requests) runs.push(await startStateless(c, req));
    return c.json(runs.map(runJson));
  });
  app.post("/runs/stream", async (c) => stream(c, randomUUID(), stateless(requestOf(await body(c, RunBody)))));
  app.post("/runs/wait", async (c) => wait(c, randomUUID(), stateless(requestOf(await body(c, RunBody)))));

  app.get("/threads/:thread_id/runs", async (c) => {
    const threadId = c.req.param("thread_id");
    await requireThread(ctx, threadId);
    const q = query(c, RunListQuery);
    const fields = selectionOf(c, RUN_FIELDS);
    const runs = await ctx.store.runs(threadId, { limit: q.limit ?? 10, offset: q.offset ?? 0, status: q.status });
    return c.json(runs.map((run) => cut(runJson(run), fields)));
  });

  app.get("/threads/:thread_id/runs/:run_id", async (c) =>
    c.json(runJson(await requireRun(c.req.param("thread_id"), c.req.param("run_id")))),
  );

  app.delete("/threads/:thread_id/runs/:run_id", async (c) => {
    const run = await requireRun(c.req.param("thread_id"), c.req.param("run_id"));
    if (isActive(run.status))
      throw new ConflictError(`Run "${run.run_id}" is ${run.status}; cancel it first.`, { run_id: run.run_id });
    await ctx.store.deleteRun(run.run_id);
    return c.body(null, 204);
  });

  app.post("/threads/:thread_id/runs/:run_id/cancel", async (c) => {
    const q = query(c, CancelQuery);
    const run = await requireRun(c.req.param("thread_id"), c.req.param("run_id"));
    if (isActive(run.status)) await cancelRun(ctx, run, q.action ?? "interrupt");
    if (q.wait === "1" || q.wait === "true") {
      await waitForRun(ctx, run.run_id);
      return c.body(null, 204);
    }
    return c.body(null, 202);
  });

  app.post("/runs/cancel", async (c) => {
    const q = query(c, CancelQuery);
    const req = await body(c, RunsCancelBody);
    // Every run named is found before any is cancelled.
    const runs = req.run_ids
      ? await Promise.all(req.run_ids.map((id) => requireRun(req.thread_id!, id)))
      : await ctx.store.runsIn(req.status!);
    for (const run of runs) if (isActive(run.status)) await cancelRun(ctx, run, q.action ?? "interrupt");
    if (q.wait === "1" || q.wait === "true") for (const run of runs) await waitForRun(ctx, run.run_id);
    return c.body(null, 204);
  });

  app.get("/threads/:thread_id/runs/:run_id/join", async (c) => {
    const q = query(c, JoinQuery);
    const threadId = c.req.param("thread_id");
    const run = await requireRun(threadId, c.req.param("run_id"));
    const stopWatching = isOn(q.cancel_on_disconnect)
      ? onClientGone(c, () => void cancelIfActive(run.run_id))
      : () => {};
    try {
      return c.json(await finalValues(ctx, await waitForRun(ctx, run.run_id), threadId));
    } finally {
      stopWatching();
    }
  });

  app.get("/threads/:thread_id/runs/:run_id/stream", async (c) => {
    const q = query(c, JoinStreamQuery);
    const threadId = c.req.param("thread_id");
    const run = await requireRun(threadId, c.req.param("run_id"));
    const onDisconnect = isOn(q.cancel_on_disconnect) ? () => void cancelIfActive(run.run_id) : undefined;
    // Reconnected to itself (the SDK sends its query again, and Last-Event-ID).
    c.set("streamLocation", `${runPath(run)}/stream`);
    return followRun(c, run.run_id, threadId, {
      lastEventId: c.req.header("last-event-id"),
      modes: c.req.queries("stream_mode"),
      onDisconnect,
    });
  });

  app.get("/threads/:thread_id/stream", async (c) => {
    // run_modes (the only mode served, and the default): the run's events in its own modes, unfiltered.
    queryList(c, "stream_mode", ThreadStreamModes);
    const threadId = c.req.param("thread_id");
    await requireThread(ctx, threadId);
    const active = (await ctx.store.activeRuns(threadId))[0];
    if (!active) return sseOf(c, [{ event: "end", data: null }]);
    return followRun(c, active.run_id, threadId, { lastEventId: c.req.header("last-event-id") });
  });

  /**
   * A run's events: from its log when it executes (or executed) here; from the store when
   * another process executes it and stores them (PostgreSQL); else its outcome once it ends.
   */
  async function followRun(c: Ctx, runId: string, threadId: string, options: FollowOptions): Promise<Response> {
    const log = ctx.broker.get(runId);
    if (log) return sseFromLog(c, log, { ...options, unfinished: () => outcomeEvents(runId, threadId) });
    if (!ctx.runEvents) return sseOf(c, await outcomeEvents(runId, threadId));
    const finished = async () => {
      const current = await ctx.store.getRun(runId);
      return !current || !isActive(current.status);
    };
    const owner = (await ctx.store.getRun(runId))?.owner ?? null;
    return sseFromStore(c, ctx, runId, { ...options, finished, ended: () => outcomeEvents(runId, threadId), owner });
  }

  /**
   * A finished run told in three events: metadata, its values (or error), end. One that cannot
   * be waited for here (drained by a shutdown, storage failed): why, then end.
   */
  async function outcomeEvents(runId: string, threadId: string): Promise<Array<{ event: string; data: unknown }>> {
    let stopped: unknown;
    const finished = await waitForRun(ctx, runId).catch((error: unknown) => void (stopped = error));
    if (stopped !== undefined)
      return [
        { event: "error", data: errorBody(stopped) },
        { event: "end", data: null },
      ];
    const values = await finalValues(ctx, finished, threadId);
    const failed = finished?.status === "error" || finished?.status === "timeout";
    const events = failed ? [{ event: "error", data: finished.error }] : [{ event: "values", data: values }];
    return [
      { event: "metadata", data: { run_id: runId, attempt: finished?.attempt ?? 1 } },
      ...events,
      { event: "end", data: null },
    ];
  }

  return app;
}
