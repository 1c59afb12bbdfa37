/**
 * LangGraph Server's store API (`client.store`): the items graphs keep in the store they are
 * compiled with (LangGraph's long-term memory), put, read, deleted, searched and listed by
 * namespace. No semantic index and no TTLs: a request that asks for either is refused (422).
 */
import type { Item } from "@interlude/core";
import { Hono } from "hono";
import type { ServerContext } from "../../context.js";
import type { AppEnv } from "../env.js";
import { StoreDeleteBody, StoreGetQuery, StoreNamespacesBody, StorePutBody, StoreSearchBody } from "../schemas.js";
import { body, query } from "../validate.js";

/** An item as the API shows it (snake case dates). */
function itemJson(item: Item | null): Record<string, unknown> | null {
  if (!item) return null;
  const { createdAt, updatedAt, ...rest } = item;
  return { ...rest, created_at: createdAt, updated_at: updatedAt };
}

export function storeRoutes(ctx: ServerContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const store = ctx.memory;

  app.put("/store/items", async (c) => {
    const req = await body(c, StorePutBody);
    await store.put(req.namespace, req.key, req.value);
    return c.body(null, 204);
  });

  app.get("/store/items", async (c) => {
    const req = query(c, StoreGetQuery);
    return c.json(itemJson(await store.get(req.namespace.split("."), req.key)));
  });

  app.delete("/store/items", async (c) => {
    const req = await body(c, StoreDeleteBody);
    await store.delete(req.namespace, req.key);
    return c.body(null, 204);
  });

  app.post("/store/items/search", async (c) => {
    const req = await body(c, StoreSearchBody);
    const items = await store.search(req.namespace_prefix ?? [], {
      ...(req.filter ? { filter: req.filter } : {}),
      limit: req.limit ?? 10,
      offset: req.offset ?? 0,
    });
    return c.json({ items: items.map(itemJson) });
  });

  app.post("/store/namespaces", async (c) => {
    const req = await body(c, StoreNamespacesBody);
    const namespaces = await store.listNamespaces({
      ...(req.prefix ? { prefix: req.prefix } : {}),
      ...(req.suffix ? { suffix: req.suffix } : {}),
      ...(req.max_depth ? { maxDepth: req.max_depth } : {}),
      limit: req.limit ?? 100,
      offset: req.offset ?? 0,
    });
    return c.json({ namespaces });
  });

  return app;
}
