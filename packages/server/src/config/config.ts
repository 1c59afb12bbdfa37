/**
 * `langgraph.json`: graph id -> "<module path>:<export>", paths relative to the file. Only the
 * modules named here are ever imported. Interlude reads one extension: `auth.api_keys`.
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { z } from "zod";
import { ConfigError } from "./errors.js";

export interface ServerConfig {
  /** Directory of the config file; graph paths and the default database are relative to it. */
  dir: string;
  /** graph id -> absolute module path and export name */
  graphs: Record<string, { path: string; exportName: string }>;
  /** API key -> identity */
  apiKeys: Record<string, string>;
}

const ConfigFile = z
  .object({
    graphs: z.record(z.string(), z.string()),
    auth: z
      .object({ api_keys: z.record(z.string(), z.string()).optional() })
      .passthrough()
      .optional(),
  })
  .passthrough();

function graphRef(dir: string, id: string, ref: string): { path: string; exportName: string } {
  const at = ref.lastIndexOf(":");
  // A Windows drive letter ("C:\\...") is not an export separator.
  const hasExport = at > 1;
  const file = hasExport ? ref.slice(0, at) : ref;
  if (!file) throw new ConfigError(`Graph "${id}": "${ref}" names no module. Use "./path/to/module.mjs:exportName".`);
  return { path: resolve(dir, file), exportName: hasExport ? ref.slice(at + 1) : "default" };
}

export function loadConfig(file: string): ServerConfig {
  const path = resolve(file);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new ConfigError(`Cannot read config ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parsed = ConfigFile.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(
      `Config ${path}: ${issue.path.join(".") || "(root)"}: ${issue.message}. Expected { "graphs": { "<id>": "./graph.mjs:graph" } }.`,
    );
  }
  const dir = dirname(path);
  const graphs = Object.fromEntries(
    Object.entries(parsed.data.graphs).map(([id, ref]) => [id, graphRef(dir, id, ref)]),
  );
  return { dir, graphs, apiKeys: parsed.data.auth?.api_keys ?? {} };
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
