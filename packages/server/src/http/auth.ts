/**
 * API keys: `x-api-key: <key>` names the caller, whose identity is recorded as `by` with every
 * answer. Without configured keys the server is open (development) and callers are "anonymous".
 * Browsers' EventSource cannot send headers, so the inbox event stream also takes `?api_key=`.
 */
import { timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { UnauthorizedError } from "../errors.js";
import type { AppEnv } from "./env.js";
import { APP_MOUNTS } from "./static.js";

const ANONYMOUS = "anonymous";

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Paths anyone may read: health checks and the web apps' static files (their data needs a key). */
function isPublic(method: string, path: string): boolean {
  if (method !== "GET" && method !== "HEAD") return false;
  if (path === "/ok" || path === "/info") return true;
  if (path.startsWith("/inbox/interrupts") || path.startsWith("/inbox/events")) return false;
  return APP_MOUNTS.some((mount) => path === mount || path.startsWith(`${mount}/`));
}

export function apiKeyAuth(keys: Record<string, string>): MiddlewareHandler<AppEnv> {
  const entries = Object.entries(keys);
  return (c, next) => {
    if (!entries.length) {
      c.set("identity", ANONYMOUS);
      return next();
    }
    const key = c.req.header("x-api-key") ?? (c.req.path === "/inbox/events" ? c.req.query("api_key") : undefined);
    // Compare against every key so the time taken does not tell which one nearly matched.
    let identity: string | undefined;
    if (key) for (const [candidate, who] of entries) if (same(candidate, key)) identity = who;
    if (!identity) {
      if (isPublic(c.req.method, c.req.path)) return next();
      throw new UnauthorizedError();
    }
    c.set("identity", identity);
    return next();
  };
}
