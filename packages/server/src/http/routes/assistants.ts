/** Assistants: one default per graph, plus any created through the API. */
import { randomUUID } from "node:crypto";
import { Hono } from "hono";
import { resolveAssistant } from "../../assistants/defaults.js";
import { graphSchemas, subgraphSchemas } from "../../assistants/schemas.js";
import type { ServerContext } from "../../context.js";
import { ConflictError, NotFoundError, ServerError } from "../../errors.js";
import type { AssistantRecord } from "../../store/records.js";
import { deleteAssistantThreads } from "../../threads/delete.js";
import type { AppEnv, Ctx } from "../env.js";
import { nextPageHeader } from "../pagination.js";
import {
  AssistantCreateBody,
  AssistantDeleteQuery,
  AssistantLatestBody,
  AssistantPatchBody,
  AssistantSearchBody,
  AssistantVersionsBody,
  GraphQuery,
  isOn,
} from "../schemas.js";
import { ASSISTANT_FIELDS, cut, selection } from "../select.js";
import { body, given, query } from "../validate.js";

/** A version as the SDK's `AssistantVersion` has it (when it was made: `created_at`). */
function versionJson({ updated_at: _made, ...version }: AssistantRecord): Record<string, unknown> {
  return version;
}

/** What a search and a count of assistants filter on. */
const ASSISTANT_FILTERS = ["graph_id", "name", "metadata"] as const;

export function assistantRoutes(ctx: ServerContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const graphOf = async (id: string) => {
    const assistant = await resolveAssistant(ctx, id);
    const graph = ctx.graphs.get(assistant.graph_id);
    if (!graph) throw new NotFoundError("assistant", id);
    return { assistant, graph };
  };

  app.post("/assistants", async (c) => {
    const req = await body(c, AssistantCreateBody);
    if (!ctx.graphs.get(req.graph_id)) throw new NotFoundError("assistant", req.graph_id);
    const now = new Date().toISOString();
    const assistant: AssistantRecord = {
      assistant_id: req.assistant_id ?? randomUUID(),
      graph_id: req.graph_id,
      name: req.name ?? req.graph_id,
      description: req.description ?? null,
      config: req.config ?? {},
      context: req.context ?? {},
      metadata: req.metadata ?? {},
      version: 1,
      created_at: now,
      updated_at: now,
    };
    if (!(await ctx.store.assistants.insert(assistant))) {
      if (req.if_exists !== "do_nothing")
        throw new ConflictError(`Assistant "${assistant.assistant_id}" already exists.`, {
          assistant_id: assistant.assistant_id,
        });
      return c.json(await resolveAssistant(ctx, assistant.assistant_id));
    }
    return c.json(assistant);
  });

  app.post("/assistants/search", async (c) => {
    const req = await body(c, AssistantSearchBody);
    const fields = selection(req.select, ASSISTANT_FIELDS);
    // LangGraph Server's order unless asked otherwise: newest first.
    const all = await ctx.store.assistants.search(given(req, ASSISTANT_FILTERS), {
      sort_by: req.sort_by ?? "created_at",
      sort_order: req.sort_order ?? "desc",
    });
    const offset = req.offset ?? 0;
    const limit = req.limit ?? 10;
    const page = all.slice(offset, offset + limit).map((assistant) => cut({ ...assistant }, fields));
    return c.json(page, 200, nextPageHeader(offset, limit, all.length > offset + limit));
  });

  app.post("/assistants/count", async (c) => {
    const req = await body(c, AssistantSearchBody);
    return c.json((await ctx.store.assistants.search(given(req, ASSISTANT_FILTERS))).length);
  });

  app.get("/assistants/:id", async (c) => c.json(await resolveAssistant(ctx, c.req.param("id"))));

  app.patch("/assistants/:id", async (c) => {
    const req = await body(c, AssistantPatchBody);
    const current = await resolveAssistant(ctx, c.req.param("id"));
    if (req.graph_id && !ctx.graphs.get(req.graph_id)) throw new NotFoundError("assistant", req.graph_id);
    const next = await ctx.store.assistants.edit(current.assistant_id, (now) => ({
      ...now,
      graph_id: req.graph_id ?? now.graph_id,
      name: req.name ?? now.name,
      description: req.description ?? now.description,
      config: req.config ?? now.config,
      context: req.context ?? now.context,
      metadata: req.metadata ? { ...now.metadata, ...req.metadata } : now.metadata,
    }));
    if (!next) throw new NotFoundError("assistant", current.assistant_id);
    return c.json(next);
  });

  app.post("/assistants/:id/versions", async (c) => {
    const req = await body(c, AssistantVersionsBody);
    const current = await resolveAssistant(ctx, c.req.param("id"));
    const versions = await ctx.store.assistants.versions(current.assistant_id, given(req, ["metadata"]));
    const offset = req.offset ?? 0;
    return c.json(versions.slice(offset, offset + (req.limit ?? 10)).map(versionJson));
  });

  app.post("/assistants/:id/latest", async (c) => {
    const req = await body(c, AssistantLatestBody);
    const current = await resolveAssistant(ctx, c.req.param("id"));
    const [version] = await ctx.store.assistants.versions(current.assistant_id, { version: req.version });
    if (!version)
      throw new ServerError(
        "NOT_FOUND",
        `Assistant "${current.assistant_id}" has no version ${req.version}; list them with POST /assistants/${current.assistant_id}/versions.`,
        { assistant_id: current.assistant_id, version: req.version },
      );
    const latest: AssistantRecord = {
      ...version,
      created_at: current.created_at,
      updated_at: new Date().toISOString(),
    };
    await ctx.store.assistants.makeCurrent(latest);
    return c.json(latest);
  });

  app.delete("/assistants/:id", async (c) => {
    const q = query(c, AssistantDeleteQuery);
    const current = await resolveAssistant(ctx, c.req.param("id"));
    if (isOn(q.delete_threads)) await deleteAssistantThreads(ctx, current.assistant_id);
    await ctx.store.assistants.delete(current.assistant_id);
    return c.body(null, 204);
  });

  app.get("/assistants/:id/graph", async (c) => {
    const { xray } = query(c, GraphQuery);
    const { graph } = await graphOf(c.req.param("id"));
    const drawing = graph.getGraph({ xray });
    // Drawn inside its node, a subgraph's own subgraphs are `node:inner` (namespaces `node|inner`).
    const subgraphs = new Set([...graph.getSubgraphs(undefined, true)].map(([name]) => name.replaceAll("|", ":")));
    return c.json({
      nodes: Object.values(drawing.nodes).map((n) => ({
        id: n.id,
        type: subgraphs.has(n.id) ? "graph" : "runnable",
        data: { id: n.id, name: n.id },
      })),
      edges: drawing.edges.map((e) => ({ source: e.source, target: e.target, conditional: e.conditional ?? false })),
    });
  });

  app.get("/assistants/:id/schemas", async (c) => {
    const { assistant, graph } = await graphOf(c.req.param("id"));
    return c.json(graphSchemas(graph, assistant.graph_id));
  });

  const subgraphs = async (c: Ctx, namespace?: string) => {
    const { assistant, graph } = await graphOf(c.req.param("id")!);
    const recurse = ["true", "1"].includes(c.req.query("recurse") ?? "");
    return c.json(subgraphSchemas(graph, assistant.graph_id, { recurse, namespace }));
  };
  app.get("/assistants/:id/subgraphs", (c) => subgraphs(c));
  app.get("/assistants/:id/subgraphs/:namespace", (c) => subgraphs(c, c.req.param("namespace")));

  return app;
}
