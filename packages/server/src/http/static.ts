/**
 * A web app's built files under a path (the inbox at /inbox/, the sample chat page at /chat/):
 * index.html for unknown paths, since the app routes in the browser.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { extname, join, normalize, sep } from "node:path";
import type { Hono } from "hono";
import type { AppEnv } from "./env.js";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".map": "application/json",
};

/** The paths the web apps are served at; their files are public (auth.ts), their data is not. */
export const APP_MOUNTS = ["/inbox", "/chat"] as const;

export function serveApp(app: Hono<AppEnv>, mount: (typeof APP_MOUNTS)[number], dir: string | undefined): void {
  if (!dir || !existsSync(join(dir, "index.html"))) return;
  const root = normalize(dir + sep);
  app.get(mount, (c) => c.redirect(`${mount}/`));
  app.get(`${mount}/*`, (c, next) => {
    // A malformed escape throws URIError: 400 INVALID_PATH (status.ts).
    const relative = decodeURIComponent(c.req.path.slice(mount.length + 1));
    const wanted = normalize(join(root, relative));
    // Never outside the app's directory.
    if (!wanted.startsWith(root)) return c.notFound();
    const file =
      existsSync(wanted) && statSync(wanted).isFile()
        ? wanted
        : extname(relative)
          ? undefined
          : join(root, "index.html");
    if (!file) return next();
    return c.body(readFileSync(file), 200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
  });
}
