/**
 * The end-to-end setting: the real `interlude serve` on a random loopback port (temp SQLite, or
 * a PostgreSQL database, the fixture graphs, API keys for two reviewers) and headless Debian
 * Chromium per reviewer.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "../../../..");
export const CHROMIUM = "/usr/bin/chromium";
export const REVIEWERS = {
  alice: { key: "alice-key-1f3a", identity: "alice@example.com" },
  bob: { key: "bob-key-7c2e", identity: "bob@example.com" },
} as const;
export type Reviewer = keyof typeof REVIEWERS;

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const srv = createServer().listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => done(port));
    });
    srv.on("error", fail);
  });
}

/** `interlude serve`, the built CLI (`npm test` builds first). */
function serveCommand(): string[] {
  const bin = join(repo, "packages/server/dist/cli/main.js");
  if (!existsSync(bin)) throw new Error(`The server is not built (${bin} is missing); run npm run build.`);
  return [bin, "serve"];
}

export interface TestServer {
  url: string;
  dir: string;
  stop(): Promise<void>;
  output(): string;
}

/** `postgres`: the database to keep everything in (several servers may share one); default a temp SQLite file. */
export async function startServer(options: { postgres?: string } = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), "interlude-inbox-e2e-"));
  const graphs = join(here, "../fixtures/graphs.mjs");
  writeFileSync(
    join(dir, "langgraph.json"),
    JSON.stringify({
      graphs: {
        email: `${graphs}:email`,
        refund: `${graphs}:refund`,
        agent: `${join(here, "../fixtures/agent.mjs")}:agent`,
      },
    }),
  );
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    [
      ...serveCommand(),
      "--config",
      join(dir, "langgraph.json"),
      "--host",
      "127.0.0.1",
      "--port",
      String(port),
      ...(options.postgres ? ["--postgres", options.postgres] : []),
    ],
    {
      cwd: dir,
      env: {
        ...process.env,
        INBOX_E2E_TOOL_LOG: join(dir, "tools.log"),
        INTERLUDE_API_KEYS: Object.values(REVIEWERS)
          .map((r) => `${r.key}:${r.identity}`)
          .join(","),
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let log = "";
  child.stdout!.on("data", (d) => (log += d));
  child.stderr!.on("data", (d) => (log += d));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`interlude serve exited ${child.exitCode}:\n${log}`);
    const ok = await fetch(`${url}/inbox/`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`interlude serve did not start:\n${log}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    dir,
    output: () => log,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
        if (child.exitCode === null) child.kill("SIGKILL");
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Browser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

/** One reviewer's browser: its own Chromium with a fresh profile. */
export async function openBrowser(baseUrl: string, signedInAs?: Reviewer): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), "interlude-inbox-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--disable-quic",
    ],
    viewport: { width: 1280, height: 800 },
    baseURL: baseUrl,
  });
  context.setDefaultTimeout(10_000);
  if (signedInAs) {
    const key = REVIEWERS[signedInAs].key;
    await context.addInitScript((k) => sessionStorage.setItem("interlude.apiKey", k), key);
  }
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** The server's HTTP API as a service (not the browser) calls it. */
export function apiAs(baseUrl: string, who: Reviewer) {
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(baseUrl + path, {
      method,
      headers: { "content-type": "application/json", "x-api-key": REVIEWERS[who].key },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    const json = text ? JSON.parse(text) : null;
    if (!res.ok)
      throw Object.assign(new Error(`${method} ${path}: ${res.status} ${text}`), { status: res.status, body: json });
    return json;
  };
  return {
    call,
    /** Starts a thread of `graphId` and runs it until it pauses. */
    async startThread(graphId: string, input: unknown): Promise<string> {
      const thread = await call("POST", "/threads", { metadata: { graph_id: graphId } });
      await call("POST", `/threads/${thread.thread_id}/runs/wait`, { assistant_id: graphId, input });
      return thread.thread_id;
    },
    state: (threadId: string) => call("GET", `/threads/${threadId}/state`),
    history: (threadId: string) => call("POST", `/threads/${threadId}/history`, { limit: 100 }),
    pending: (query = "") => call("GET", `/inbox/interrupts${query}`),
  };
}

/** One test file's world: the server, the API as alice, alice's browser and (when asked) bob's, not signed in. */
export interface Setting {
  server: TestServer;
  api: ReturnType<typeof apiAs>;
  alice: Browser;
  bob: Browser;
}

/** Starts the setting before the file's tests and stops it after; its fields are set once they start. */
export function useSetting(options: { bob?: boolean } = {}): Setting {
  const setting = {} as Setting;
  beforeAll(async () => {
    setting.server = await startServer();
    const url = setting.server.url;
    setting.api = apiAs(url, "alice");
    const bob = options.bob ? openBrowser(url) : undefined;
    [setting.alice, setting.bob] = (await Promise.all([openBrowser(url, "alice"), bob])) as [Browser, Browser];
  }, 60_000);
  afterAll(async () => {
    await Promise.all([setting.alice?.close(), setting.bob?.close()]);
    await setting.server?.stop();
  });
  return setting;
}
