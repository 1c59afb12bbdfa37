/**
 * `langgraph.json`: graph id -> "<module path>:<export>" (or `{ path, description }`), paths
 * relative to the file. Only the modules named here are ever imported. Every key LangGraph's CLI
 * knows is read (graphs, env, auth, checkpointer.ttl), accepted as build-only (config-keys.ts) or
 * refused: none is ignored in silence. Interlude reads one extension: `auth.api_keys`.
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { z } from "zod";
import { DEFAULT_SWEEP_MS, MINUTE_MS, type TtlPolicy } from "../threads/ttl.js";
import { servedKeys } from "./config-keys.js";
import { readEnv } from "./env.js";
import { ConfigError } from "./errors.js";

export interface ServerConfig {
  /** Directory of the config file; graph paths and the default database are relative to it. */
  dir: string;
  /** graph id -> absolute module path and export name */
  graphs: Record<string, { path: string; exportName: string }>;
  /** API key -> identity */
  apiKeys: Record<string, string>;
  /** The config's `env` (env.ts): set in the process environment before the graphs load, where not set already. */
  env?: Record<string, string>;
  /** What the config asks that is accepted but has no effect here, to show the operator. */
  warnings?: string[];
  /** `checkpointer.ttl`: threads' default TTL and how often to sweep (threads/ttl.ts). */
  threadTtl?: TtlPolicy;
}

const GraphEntry = z.union([z.string(), z.object({ path: z.string(), description: z.string().optional() }).strict()]);

/** `checkpointer.ttl`, in minutes as LangGraph counts them (threads/ttl.ts). */
const TtlConfig = z
  .object({
    strategy: z.enum(["delete", "keep_latest"]).optional(),
    default_ttl: z.number().positive().optional(),
    sweep_interval_minutes: z.number().positive().optional(),
  })
  .strict();

const ConfigFile = z
  .object({
    graphs: z.record(z.string(), GraphEntry),
    env: z.union([z.string(), z.record(z.string(), z.string())]).optional(),
    auth: z
      .object({
        api_keys: z.record(z.string(), z.string()).optional(),
        // Lets LangGraph Studio past custom auth; Interlude has neither, and asks every client for its key.
        disable_studio_auth: z.boolean().optional(),
      })
      .strict()
      .optional(),
    checkpointer: z.object({ ttl: TtlConfig.optional() }).strict().optional(),
  })
  // Build-only keys are taken out before (config-keys.ts): any other key is unknown.
  .strict();

function graphRef(dir: string, id: string, ref: string): { path: string; exportName: string } {
  const at = ref.lastIndexOf(":");
  // A Windows drive letter ("C:\\...") is not an export separator.
  const hasExport = at > 1;
  const file = hasExport ? ref.slice(0, at) : ref;
  if (!file) throw new ConfigError(`Graph "${id}": "${ref}" names no module. Use "./path/to/module.mjs:exportName".`);
  return { path: resolve(dir, file), exportName: hasExport ? ref.slice(at + 1) : "default" };
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const at = issue.path.join(".") || "(root)";
  if (issue.code === "unrecognized_keys")
    return `${at}: ${issue.keys.map((key) => `"${key}"`).join(", ")} is not a langgraph.json key interlude serve knows. Check its spelling, or remove it.`;
  return `${at}: ${issue.message}. Expected { "graphs": { "<id>": "./graph.mjs:graph" } }.`;
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new ConfigError(`Cannot read config ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

export function loadConfig(file: string): ServerConfig {
  const path = resolve(file);
  const keys = servedKeys(readJson(path));
  if ("refusal" in keys) throw new ConfigError(`Config ${path}: ${keys.refusal}`);
  const parsed = ConfigFile.safeParse(keys.served);
  if (!parsed.success) throw new ConfigError(`Config ${path}: ${describeIssue(parsed.error.issues[0]!)}`);
  const dir = dirname(path);
  const warnings: string[] = [];
  const graphs: ServerConfig["graphs"] = {};
  for (const [id, entry] of Object.entries(parsed.data.graphs)) {
    if (typeof entry !== "string" && entry.description !== undefined)
      warnings.push(`graph "${id}": its description is for LangGraph's MCP endpoint, which Interlude does not serve.`);
    graphs[id] = graphRef(dir, id, typeof entry === "string" ? entry : entry.path);
  }
  const env = readEnv(dir, parsed.data.env, warnings);
  const threadTtl = ttlPolicy(parsed.data.checkpointer?.ttl);
  return { dir, graphs, apiKeys: parsed.data.auth?.api_keys ?? {}, env, warnings, ...(threadTtl && { threadTtl }) };
}

function ttlPolicy(ttl: z.infer<typeof TtlConfig> | undefined): TtlPolicy | undefined {
  if (!ttl) return undefined;
  const sweepMs = ttl.sweep_interval_minutes !== undefined ? ttl.sweep_interval_minutes * MINUTE_MS : DEFAULT_SWEEP_MS;
  if (ttl.default_ttl === undefined) return { sweepMs };
  return { default: { strategy: ttl.strategy ?? "delete", ms: ttl.default_ttl * MINUTE_MS }, sweepMs };
}

/** `INTERLUDE_API_KEYS="key1:alice@example.com,key2:bob"` */
export function parseApiKeys(text: string | undefined): Record<string, string> {
  const keys: Record<string, string> = {};
  for (const entry of (text ?? "").split(",")) {
    const item = entry.trim();
    if (!item) continue;
    const at = item.indexOf(":");
    if (at <= 0)
      throw new ConfigError(`INTERLUDE_API_KEYS entry "${item.slice(0, 4)}…" has no identity; write key:identity.`);
    keys[item.slice(0, at)] = item.slice(at + 1);
  }
  return keys;
}
