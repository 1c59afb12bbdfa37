/** Threads: create, read, search, edit metadata, delete, copy. */
import { randomUUID } from "node:crypto";
import { Hono } from "hono";
import { defaultAssistantId } from "../../assistants/defaults.js";
import type { ServerContext } from "../../context.js";
import { ConflictError, NotFoundError } from "../../errors.js";
import type { ThreadRecord } from "../../store/records.js";
import { setThreadTtl } from "../../store/thread-ttl.js";
import { copyThread } from "../../threads/copy.js";
import { deleteThread } from "../../threads/delete.js";
import { insertThreadIn, newThread } from "../../threads/new-thread.js";
import { pruneThread } from "../../threads/prune.js";
import { applySupersteps } from "../../threads/supersteps.js";
import { syncThread } from "../../threads/sync.js";
import { type ThreadTtl, ttlOf } from "../../threads/ttl.js";
import type { AppEnv } from "../env.js";
import { nextPageHeader } from "../pagination.js";
import { ThreadCreateBody, ThreadGetQuery, ThreadPatchBody, ThreadPruneBody, ThreadSearchBody } from "../schemas.js";
import { cut, selection, selectsValues, THREAD_FIELDS } from "../select.js";
import { body, given, query } from "../validate.js";

/** The thread as the API shows it. */
function threadJson(t: ThreadRecord): Record<string, unknown> {
  return {
    thread_id: t.thread_id,
    created_at: t.created_at,
    updated_at: t.updated_at,
    state_updated_at: t.state_updated_at,
    metadata: t.metadata,
    status: t.status,
    values: t.values ?? {},
    interrupts: t.interrupts,
    error: t.error ?? null,
    config: t.config,
  };
}

/**
 * The thread, or 404. Without `values: true` its values are left out (null): most callers need
 * only its graph or its existence, and a large state would be loaded from its checkpoint.
 */
export async function requireThread(
  ctx: ServerContext,
  id: string,
  options: { values?: boolean } = {},
): Promise<ThreadRecord> {
  const thread = await ctx.store.getThread(id, { values: options.values ?? false });
  if (!thread) throw new NotFoundError("thread", id);
  return thread;
}

/** `insertThreadIn`, in a transaction of its own; false when a thread has that id already. */
function insertWithTtl(ctx: ServerContext, thread: ThreadRecord, ttl: ThreadTtl | undefined): Promise<boolean> {
  return ctx.store.tx((tx) => insertThreadIn(tx, thread, ttl, ctx.now()), thread.thread_id);
}

export function threadRoutes(ctx: ServerContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.post("/threads", async (c) => {
    const req = await body(c, ThreadCreateBody);
    const thread = newThread(req.thread_id ?? randomUUID(), req.metadata ?? {});
    if (thread.graph_id && ctx.graphs.get(thread.graph_id)) thread.assistant_id = defaultAssistantId(thread.graph_id);
    const ttl = ttlOf(req.ttl, ctx.threadTtl.default);
    if (!(await insertWithTtl(ctx, thread, ttl))) {
      if (req.if_exists === "do_nothing")
        return c.json(threadJson(await requireThread(ctx, thread.thread_id, { values: true })));
      throw new ConflictError(`Thread "${thread.thread_id}" already exists.`, { thread_id: thread.thread_id });
    }
    if (req.supersteps?.length) {
      try {
        await applySupersteps(ctx, thread, req.supersteps);
        return c.json(threadJson((await syncThread(ctx, thread.thread_id))!));
      } catch (error) {
        // Refused or not recorded: the thread is not created, so a retry is not a 409.
        await ctx.saver.deleteThread(thread.thread_id);
        await ctx.store.deleteThread(thread.thread_id);
        throw error;
      }
    }
    return c.json(threadJson(thread));
  });

  app.post("/threads/search", async (c) => {
    const req = await body(c, ThreadSearchBody);
    const fields = selection(req.select, THREAD_FIELDS);
    const limit = req.limit ?? 10;
    const offset = req.offset ?? 0;
    const { threads, more } = await ctx.store.threadPage(
      { ...given(req, ["ids", "status", "metadata", "values", "sort_by", "sort_order"]), limit, offset },
      { values: selectsValues(fields) },
    );
    const page = threads.map((thread) => cut(threadJson(thread), fields));
    return c.json(page, 200, nextPageHeader(offset, limit, more));
  });

  app.post("/threads/prune", async (c) => {
    const req = await body(c, ThreadPruneBody);
    let pruned = 0;
    for (const id of new Set(req.thread_ids)) {
      const thread = await ctx.store.getThread(id, { values: false });
      if (thread && (await pruneThread(ctx, thread, req.strategy ?? "delete"))) pruned++;
    }
    return c.json({ pruned_count: pruned });
  });

  app.post("/threads/count", async (c) => {
    const req = await body(c, ThreadSearchBody);
    return c.json(await ctx.store.countThreads(given(req, ["status", "metadata", "values"])));
  });

  app.get("/threads/:thread_id", async (c) => {
    query(c, ThreadGetQuery);
    return c.json(threadJson(await requireThread(ctx, c.req.param("thread_id"), { values: true })));
  });

  app.patch("/threads/:thread_id", async (c) => {
    const req = await body(c, ThreadPatchBody);
    const threadId = c.req.param("thread_id");
    // Under the thread's lock (no edit of its metadata lost to another), writing its metadata alone.
    const next = await ctx.store.tx(async (tx) => {
      const thread = await tx.getThread(threadId);
      if (!thread) throw new NotFoundError("thread", threadId);
      const edited = {
        ...thread,
        metadata: { ...thread.metadata, ...req.metadata },
        updated_at: new Date().toISOString(),
      };
      await tx.saveThreadMetadata(edited);
      const ttl = ttlOf(req.ttl, undefined);
      if (ttl) await setThreadTtl(tx.db, threadId, ttl, ctx.now());
      return edited;
    }, threadId);
    return c.json(threadJson(next));
  });

  app.delete("/threads/:thread_id", async (c) => {
    await deleteThread(ctx, await requireThread(ctx, c.req.param("thread_id")));
    return c.body(null, 204);
  });

  app.post("/threads/:thread_id/copy", async (c) => {
    const source = await requireThread(ctx, c.req.param("thread_id"));
    return c.json(threadJson(await copyThread(ctx, source)));
  });

  return app;
}
