/**
 * Where CLI commands send their requests: a running server (`--url`), or a local storage
 * file (`--db`, with `--config` for the graphs) served in-process by the same HTTP app, so
 * both speak the same API.
 */
import { userInfo } from "node:os";
import { resolve } from "node:path";
import { type Backend, openBackend } from "../backend.js";
import { loadConfig } from "../config/config.js";
import { createApp } from "../http/app.js";

export interface TargetOptions {
  url?: string;
  db?: string;
  config?: string;
  apiKey?: string;
}

export interface Target {
  request(
    path: string,
    init?: { method?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<Response>;
  json<T = any>(path: string, init?: { method?: string; body?: unknown }): Promise<T>;
  close(): Promise<void>;
}

export class CliError extends Error {}

async function failure(response: Response): Promise<never> {
  const text = await response.text();
  let message = text;
  try {
    const body = JSON.parse(text) as { message?: string; code?: string };
    message = body.code ? `${body.code}: ${body.message}` : (body.message ?? text);
  } catch {
    // not JSON: show it as it is
  }
  throw new CliError(`${response.status} ${message}`);
}

function target(send: (path: string, init: RequestInit) => Promise<Response>, close: () => Promise<void>): Target {
  const request: Target["request"] = (path, init = {}) => {
    const headers: Record<string, string> = { ...init.headers };
    if (init.body !== undefined) headers["content-type"] = "application/json";
    return send(path, {
      method: init.method ?? "GET",
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
  };
  return {
    request,
    async json(path, init) {
      const response = await request(path, init);
      if (!response.ok) await failure(response);
      const text = await response.text();
      return text ? JSON.parse(text) : undefined;
    },
    close,
  };
}

export async function openTarget(options: TargetOptions): Promise<Target> {
  const url = options.url ?? (options.db ? undefined : process.env.INTERLUDE_URL);
  if (url) {
    const base = url.replace(/\/$/, "");
    const key = options.apiKey ?? process.env.INTERLUDE_API_KEY;
    return target(
      async (path, init) => {
        const headers = new Headers(init.headers);
        if (key) headers.set("x-api-key", key);
        try {
          return await fetch(`${base}${path}`, { ...init, headers });
        } catch (error) {
          throw new CliError(`Cannot reach ${base}: ${error instanceof Error ? error.message : String(error)}`);
        }
      },
      async () => undefined,
    );
  }
  if (!options.db)
    throw new CliError(
      "Say where the threads are: --url http://host:port (a running server) or --db path.sqlite (a local storage file, with --config for the graphs).",
    );
  const config = options.config ? loadConfig(options.config) : undefined;
  const backend: Backend = await openBackend({ config, sqlitePath: resolve(options.db) });
  // The local user answers: recorded as `by` like an API key's identity.
  const key = "local-cli";
  const app = createApp(backend.ctx, { apiKeys: { [key]: `cli:${userInfo().username}` } });
  return target(
    async (path, init) => {
      const headers = new Headers(init.headers);
      headers.set("x-api-key", key);
      return app.fetch(new Request(`http://local${path}`, { ...init, headers }));
    },
    () => backend.close(),
  );
}
