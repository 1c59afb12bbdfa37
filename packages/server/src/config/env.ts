/**
 * The `env` of a `langgraph.json`: variables for the graphs (their models' API keys, ...), read
 * from a .env file beside the config or given inline, as LangGraph's CLI reads them. Variables
 * the process already has win, so a deployment's own environment overrides the file.
 */
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseEnv } from "node:util";
import { ConfigError } from "./errors.js";

/** The variables `spec` names (a path relative to `dir`, or the variables themselves). */
export function readEnv(
  dir: string,
  spec: string | Record<string, string> | undefined,
  warnings: string[],
): Record<string, string> {
  if (spec === undefined) return {};
  if (typeof spec !== "string") return { ...spec };
  const file = resolve(dir, spec);
  // Often left out of the deployment, whose environment then carries the variables: LangGraph's
  // CLI goes on without it too.
  if (!existsSync(file)) {
    warnings.push(
      `env file ${file} (the config's "env") does not exist; the graphs get the process's environment only.`,
    );
    return {};
  }
  try {
    return Object.fromEntries(
      Object.entries(parseEnv(readFileSync(file, "utf8"))).filter(
        (entry): entry is [string, string] => entry[1] !== undefined,
      ),
    );
  } catch (error) {
    throw new ConfigError(`Cannot read env file ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Sets each of `vars` the process does not have yet; returns the names set. */
export function exportEnv(vars: Readonly<Record<string, string>> | undefined): string[] {
  const set: string[] = [];
  for (const [name, value] of Object.entries(vars ?? {})) {
    if (process.env[name] !== undefined) continue;
    process.env[name] = value;
    set.push(name);
  }
  return set;
}
