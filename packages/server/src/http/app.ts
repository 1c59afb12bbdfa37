/** The HTTP API: LangGraph Server's routes, the inbox's, auth, limits and JSON errors. */
import { Hono } from "hono";
import type { ServerContext } from "../context.js";
import { ServerError } from "../errors.js";
import { jsonBody } from "../wire/json-body.js";
import { apiKeyAuth } from "./auth.js";
import { bodySizeLimit } from "./body-limit.js";
import type { AppEnv } from "./env.js";
import { assistantRoutes } from "./routes/assistants.js";
import { cronRoutes } from "./routes/crons.js";
import { inboxRoutes } from "./routes/inbox.js";
import { metaRoutes } from "./routes/meta.js";
import { metricsRoutes } from "./routes/metrics.js";
import { protocolRoutes } from "./routes/protocol.js";
import { runRoutes } from "./routes/runs.js";
import { stateRoutes } from "./routes/state.js";
import { storeRoutes } from "./routes/store.js";
import { threadRoutes } from "./routes/threads.js";
import { serveApp } from "./static.js";
import { errorResponse } from "./status.js";

export interface AppOptions {
  apiKeys: Record<string, string>;
  /** Largest accepted request body, in bytes (default 1 MiB). */
  maxBodyBytes?: number;
  /** Built inbox app to serve at /inbox/, if present. */
  inboxDir?: string;
  /** Built sample chat page to serve at /chat/, if present. */
  chatDir?: string;
  version?: string;
  /** Only `GET /ok`, `/info` and `/metrics`: a worker's listener, for its probes and scrapes. */
  probesOnly?: boolean;
}

export function createApp(ctx: ServerContext, options: AppOptions): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.onError((error, c) => {
    const { status, body } = errorResponse(error);
    // A feature refused (501), or a run drained at shutdown, is the caller's to read, not a failure of the server's.
    if (status >= 500 && status !== 501 && body.code !== "SERVER_STOPPING")
      console.error("[interlude]", c.req.method, c.req.path, error);
    return c.json(body, status as 400);
  });
  app.notFound((c) => c.json(new ServerError("NOT_FOUND", `No route ${c.req.method} ${c.req.path}.`).toJSON(), 404));
  const auth = apiKeyAuth(options.apiKeys);
  const maxSize = options.maxBodyBytes ?? 1024 * 1024;
  const limit = bodySizeLimit(maxSize, () => {
    throw new ServerError("BODY_TOO_LARGE", `The request body is larger than ${maxSize} bytes.`);
  });
  // What every request goes through, as one middleware: each of Hono's layers is an async
  // dispatch of its own (promises and closures on every request). Not an async function, nor
  // are auth and the limit: each would add promises of its own to every request's (a throw is
  // caught by Hono's dispatch all the same).
  app.use("*", (c, next) => {
    c.set("receivedAt", new Date().toISOString());
    // Messages in any JSON response in LangGraph Server's shape (wire/messages.ts), whichever route
    // sends it. Serialised once, converting as it goes (Hono's own c.json would serialise again);
    // a large one as bytes (wire/json-body.ts).
    // Written as a plain header record (no Headers object) unless a ResponseInit is given; routes
    // set no headers with `c.header` before a JSON response (Content-Location is `contentLocation`).
    const body = c.body as (text: string | Buffer, arg?: unknown, headers?: Record<string, string>) => Response;
    c.json = ((object: unknown, arg?: unknown, headers?: Record<string, string>) => {
      const location = c.get("contentLocation");
      const head: Record<string, string> = { "Content-Type": "application/json", ...headers };
      if (location !== undefined) head["Content-Location"] = location;
      const text = jsonBody(object);
      if (typeof arg === "object" && arg !== null) return body(text, arg, head);
      return new Response(text, { status: (arg as number | undefined) ?? 200, headers: head });
    }) as unknown as typeof c.json;
    // The limit gives no response of its own (its onError throws): next()'s is the route's.
    return auth(c, () => limit(c, next) as Promise<void>);
  });
  app.route("/", metaRoutes(ctx, options.version ?? "0.1.0"));
  app.route("/", metricsRoutes(ctx));
  if (options.probesOnly) return app;
  for (const routes of [
    assistantRoutes,
    threadRoutes,
    stateRoutes,
    cronRoutes,
    runRoutes,
    storeRoutes,
    inboxRoutes,
    protocolRoutes,
  ])
    app.route("/", routes(ctx));
  serveApp(app, "/inbox", options.inboxDir);
  serveApp(app, "/chat", options.chatDir);
  return app;
}
