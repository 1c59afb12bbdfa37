/** A thread's state: now, at a checkpoint, its history, and edits (which fork when aimed at an old checkpoint). */

import type { RunnableConfig } from "@interlude/core";
import { Hono } from "hono";
import { graphOf, type ServerContext } from "../../context.js";
import { NotFoundError, ServerError, ThreadRunningError } from "../../errors.js";
import { apiCheckpoint, threadState } from "../../threads/state.js";
import { syncAfterSaved } from "../../threads/sync.js";
import type { AppEnv } from "../env.js";
import { HistoryBody, HistoryQuery, StateAtBody, StateUpdateBody } from "../schemas.js";
import { cut, STATE_FIELDS, selection, selectionOf } from "../select.js";
import { body, query } from "../validate.js";
import { requireThread } from "./threads.js";

function emptyState(_threadId: string): Record<string, unknown> {
  return {
    values: {},
    next: [],
    tasks: [],
    metadata: null,
    created_at: null,
    checkpoint: null,
    parent_checkpoint: null,
    checkpoint_id: null,
    parent_checkpoint_id: null,
    interrupts: [],
  };
}

const truthy = (v: string | undefined) => v === "true" || v === "1";

export function stateRoutes(ctx: ServerContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  async function stateAt(
    threadId: string,
    checkpoint: { checkpoint_id?: string; checkpoint_ns?: string },
    subgraphs: boolean,
  ) {
    const thread = await requireThread(ctx, threadId);
    const graph = graphOf(ctx, thread.graph_id);
    if (!graph) return emptyState(threadId);
    const configurable: Record<string, unknown> = {
      thread_id: threadId,
      checkpoint_ns: checkpoint.checkpoint_ns ?? "",
    };
    if (checkpoint.checkpoint_id) configurable.checkpoint_id = checkpoint.checkpoint_id;
    const snapshot = await graph.getState({ configurable }, { subgraphs });
    if (!snapshot.metadata && checkpoint.checkpoint_id) throw new NotFoundError("checkpoint", checkpoint.checkpoint_id);
    return snapshot.metadata ? threadState(snapshot, threadId) : emptyState(threadId);
  }

  app.get("/threads/:thread_id/state", async (c) => {
    const fields = selectionOf(c, STATE_FIELDS, true);
    return c.json(cut(await stateAt(c.req.param("thread_id"), {}, truthy(c.req.query("subgraphs"))), fields));
  });

  app.get("/threads/:thread_id/state/:checkpoint_id", async (c) => {
    const fields = selectionOf(c, STATE_FIELDS, true);
    const checkpoint = { checkpoint_id: c.req.param("checkpoint_id") };
    return c.json(cut(await stateAt(c.req.param("thread_id"), checkpoint, truthy(c.req.query("subgraphs"))), fields));
  });

  app.post("/threads/:thread_id/state/checkpoint", async (c) => {
    const req = await body(c, StateAtBody);
    const fields = selection(req.select, STATE_FIELDS, true);
    return c.json(cut(await stateAt(c.req.param("thread_id"), req.checkpoint, req.subgraphs === true), fields));
  });

  // threads.patchState: refused, not ignored. Checkpoints are records of what ran; labels go on the thread.
  app.patch("/threads/:thread_id/state", async (c) => {
    const threadId = c.req.param("thread_id");
    await requireThread(ctx, threadId);
    throw new ServerError(
      "UNSUPPORTED_FEATURE",
      "PATCH /threads/:id/state (threads.patchState) is not supported: checkpoints are not edited in place. " +
        "Keep labels in the thread's metadata (PATCH /threads/:id), or write a new checkpoint (POST /threads/:id/state).",
      { thread_id: threadId },
      501,
    );
  });

  app.post("/threads/:thread_id/state", async (c) => {
    const req = await body(c, StateUpdateBody);
    const threadId = c.req.param("thread_id");
    const thread = await requireThread(ctx, threadId);
    if ((await ctx.store.activeRuns(threadId)).length) throw new ThreadRunningError(threadId);
    const graph = graphOf(ctx, thread.graph_id);
    if (!graph)
      throw new ServerError(
        "GRAPH_REQUIRED",
        `Thread "${threadId}" has no graph yet: run it once, or create it with metadata.graph_id.`,
        { thread_id: threadId },
      );
    const checkpointId = req.checkpoint_id ?? req.checkpoint?.checkpoint_id;
    const config: RunnableConfig = {
      configurable: { thread_id: threadId, ...(checkpointId ? { checkpoint_id: checkpointId } : {}) },
      // Recorded with the checkpoint: an edit `as_node` can skip a pending question, and says who did.
      metadata: { by: c.get("identity") },
    };
    const saved = await graph.updateState(config, (req.values ?? null) as never, req.as_node ?? undefined);
    await syncAfterSaved(ctx, threadId, { error: null, resolvedBy: c.get("identity") });
    return c.json({ checkpoint: apiCheckpoint(saved, threadId) });
  });

  app.post("/threads/:thread_id/history", async (c) => {
    const req = await body(c, HistoryBody);
    const fields = selection(req.select, STATE_FIELDS, true);
    const threadId = c.req.param("thread_id");
    const thread = await requireThread(ctx, threadId);
    const graph = graphOf(ctx, thread.graph_id);
    if (!graph) return c.json([]);
    const before =
      typeof req.before === "string"
        ? req.before
        : ((req.before?.configurable?.checkpoint_id ?? req.before?.checkpoint_id) as string | undefined);
    const configurable: Record<string, unknown> = {
      thread_id: threadId,
      checkpoint_ns: req.checkpoint?.checkpoint_ns ?? "",
    };
    if (req.checkpoint?.checkpoint_id) configurable.checkpoint_id = req.checkpoint.checkpoint_id;
    const states: unknown[] = [];
    const options = {
      limit: req.limit ?? 10,
      ...(before ? { before: { configurable: { checkpoint_id: before } } } : {}),
      ...(req.metadata ? { filter: req.metadata } : {}),
    };
    for await (const snapshot of graph.getStateHistory({ configurable }, options))
      states.push(cut(threadState(snapshot, threadId), fields));
    return c.json(states);
  });

  app.get("/threads/:thread_id/history", async (c) => {
    const threadId = c.req.param("thread_id");
    const limit = query(c, HistoryQuery).limit ?? 10;
    const fields = selectionOf(c, STATE_FIELDS, true);
    const graph = graphOf(ctx, (await requireThread(ctx, threadId)).graph_id);
    if (!graph) return c.json([]);
    const states: unknown[] = [];
    for await (const snapshot of graph.getStateHistory({ configurable: { thread_id: threadId } }, { limit }))
      states.push(cut(threadState(snapshot, threadId), fields));
    return c.json(states);
  });

  return app;
}
