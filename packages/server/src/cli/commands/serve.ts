/** `interlude serve` and `interlude worker`. */

import { openBackend } from "../../backend.js";
import { loadConfig, parseApiKeys, type ServerConfig } from "../../config/config.js";
import { exportEnv } from "../../config/env.js";
import { parseConnections } from "../../config/postgres-connections.js";
import { startServer } from "../../server.js";
import { CliError } from "../target.js";

export interface ServeFlags {
  config: string;
  host: string;
  port: string;
  postgres?: string;
  db?: string;
  concurrency?: string;
  postgresConnections?: string;
}

const POSTGRES_ONLY = { concurrency: "--concurrency", postgresConnections: "--postgres-connections" } as const;

/** The PostgreSQL-only flags as numbers: `--concurrency` a whole number (0: executes none), `--postgres-connections` config/postgres-connections.ts. */
function postgresFlags(flags: Pick<ServeFlags, keyof typeof POSTGRES_ONLY>, postgresUrl: string | undefined) {
  const given = Object.entries(POSTGRES_ONLY).filter(
    ([name]) => flags[name as keyof typeof POSTGRES_ONLY] !== undefined,
  );
  if (!postgresUrl && given.length)
    throw new CliError(
      `${given.map(([, flag]) => flag).join(" and ")} ${given.length > 1 ? "apply" : "applies"} to PostgreSQL storage only: pass --postgres <url> (or set DATABASE_URL), or leave it out.`,
    );
  const concurrency = flags.concurrency === undefined ? undefined : Number(flags.concurrency);
  if (concurrency !== undefined && !(Number.isInteger(concurrency) && concurrency >= 0))
    throw new CliError(
      `--concurrency ${flags.concurrency} is not a whole number of runs (0: this process executes none).`,
    );
  return { concurrency, postgresConnections: parseConnections(flags.postgresConnections, "--postgres-connections") };
}

/**
 * How long a stopping process waits for its runs to record their outcome and its connections
 * to close (the backend gives runs 10 s, pg-boss 5 s). Past it the process exits anyway: a
 * request stuck on the database must not keep it alive, and every thread stays resumable
 * from its last checkpoint.
 */
const SHUTDOWN_GRACE_MS = 20_000;

function onSignals(stop: () => Promise<void>): void {
  let stopping = false;
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      if (stopping) return;
      stopping = true;
      setTimeout(() => {
        console.error(
          `[interlude] still stopping after ${SHUTDOWN_GRACE_MS / 1000} s: exiting without waiting further.`,
        );
        process.exit(1);
      }, SHUTDOWN_GRACE_MS).unref();
      void stop().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
  }
}

/**
 * The config, with its `env` in the process environment from here on (so a .env file may also
 * give DATABASE_URL or INTERLUDE_API_KEYS, as with LangGraph's CLI), and what it asks that has no
 * effect here told on stderr.
 */
function configOf(file: string): ServerConfig {
  const config = loadConfig(file);
  exportEnv(config.env);
  for (const warning of config.warnings ?? []) console.error(`[interlude] ${warning}`);
  return config;
}

export async function serve(flags: ServeFlags): Promise<void> {
  const config = configOf(flags.config);
  const postgresUrl = flags.postgres ?? process.env.DATABASE_URL;
  const server = await startServer({
    config,
    host: flags.host,
    port: portOf(flags.port),
    postgresUrl,
    sqlitePath: flags.db,
    apiKeys: parseApiKeys(process.env.INTERLUDE_API_KEYS),
    ...postgresFlags(flags, postgresUrl),
  });
  const keys = Object.keys({ ...config.apiKeys, ...parseApiKeys(process.env.INTERLUDE_API_KEYS) }).length;
  console.log(`Interlude server listening on ${server.url}`);
  console.log(`  graphs:  ${server.backend.ctx.graphs.ids().join(", ")}`);
  console.log(`  storage: ${server.backend.storage}`);
  console.log(`  auth:    ${keys ? `${keys} API key(s)` : "none (open, answers recorded as anonymous)"}`);
  console.log(`  inbox:   ${server.url}/inbox/`);
  const ttl = server.backend.ctx.threadTtl.default;
  if (ttl)
    console.log(
      `  ttl:     threads untouched for ${ttl.ms / 60_000} min are ${ttl.strategy === "delete" ? "deleted" : "cut to their newest checkpoint"}`,
    );
  onSignals(() => server.close());
}

/** `--port`: a listener for the worker's probes and scrapes (`/ok`, `/info`, `/metrics`); none without it. */
export async function worker(flags: Omit<ServeFlags, "port" | "db"> & { port?: string }): Promise<void> {
  const config = configOf(flags.config);
  const postgresUrl = flags.postgres ?? process.env.DATABASE_URL;
  if (!postgresUrl)
    throw new CliError("interlude worker shares work through PostgreSQL: pass --postgres <url> or set DATABASE_URL.");
  const options = { config, postgresUrl, ...postgresFlags(flags, postgresUrl) };
  if (flags.port === undefined) {
    const backend = await openBackend(options);
    console.log(`Interlude worker ready (graphs: ${backend.ctx.graphs.ids().join(", ")}; ${backend.storage})`);
    onSignals(() => backend.close());
    return;
  }
  const server = await startServer({
    ...options,
    host: flags.host,
    port: portOf(flags.port),
    apiKeys: parseApiKeys(process.env.INTERLUDE_API_KEYS),
    probesOnly: true,
  });
  console.log(
    `Interlude worker ready (graphs: ${server.backend.ctx.graphs.ids().join(", ")}; ${server.backend.storage}); /ok and /metrics on ${server.url}`,
  );
  onSignals(() => server.close());
}

function portOf(flag: string): number {
  const port = Number(flag);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new CliError(`--port ${flag} is not a port number.`);
  return port;
}
