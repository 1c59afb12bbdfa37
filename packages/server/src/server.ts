/** `interlude serve`: the backend plus the HTTP API on a host and port. */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { serve } from "@hono/node-server";
import { type Backend, type BackendOptions, openBackend } from "./backend.js";
import { createApp } from "./http/app.js";

export interface ServeOptions extends BackendOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** API key -> identity; empty or absent: an open server (development). */
  apiKeys?: Record<string, string>;
  maxBodyBytes?: number;
  /** Built inbox app (default: @interlude/inbox's dist, when built). */
  inboxDir?: string;
  /** Built sample chat page (default: packages/chat/dist in the repository, when built). */
  chatDir?: string;
  /** Serve only `GET /ok`, `/info` and `/metrics` (`interlude worker --port`). */
  probesOnly?: boolean;
}

export interface RunningServer {
  url: string;
  port: number;
  backend: Backend;
  close(): Promise<void>;
}

function defaultInboxDir(): string | undefined {
  try {
    const dir = join(dirname(createRequire(import.meta.url).resolve("@interlude/inbox/package.json")), "dist");
    if (existsSync(dir)) return dir;
  } catch {
    // not installed: fall back to the workspace layout
  }
  const sibling = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "inbox", "dist");
  return existsSync(sibling) ? sibling : undefined;
}

/** The chat page is a sample of the repository, not a published package: only beside the server's sources. */
function defaultChatDir(): string | undefined {
  const sibling = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "chat", "dist");
  return existsSync(sibling) ? sibling : undefined;
}

/** At shutdown, how long the answers to requests whose runs drained have to go out before every connection is cut. */
const ANSWERS_OUT_MS = 500;

export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const backend = await openBackend(options);
  const apiKeys = { ...options.config?.apiKeys, ...options.apiKeys };
  const app = createApp(backend.ctx, {
    apiKeys,
    maxBodyBytes: options.maxBodyBytes,
    inboxDir: options.inboxDir ?? defaultInboxDir(),
    chatDir: options.chatDir ?? defaultChatDir(),
    probesOnly: options.probesOnly,
  });
  const host = options.host ?? "127.0.0.1";
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, hostname: host, port: options.port ?? 0 }, () => resolve(s));
    s.once("error", reject);
  });
  const port = (server.address() as AddressInfo).port;
  const shown = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}`,
    port,
    backend,
    async close() {
      // No new connections (idle ones close); requests under way are answered as their runs drain.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await backend.drain();
      // Streams that follow nothing of this process (the inbox's, another process's runs) would
      // keep close() waiting: cut once the answers above have had a moment to go out.
      await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, ANSWERS_OUT_MS))]);
      (server as unknown as { closeAllConnections(): void }).closeAllConnections();
      await closed;
      await backend.close();
    },
  };
}
