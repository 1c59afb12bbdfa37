/**
 * Every graph in the config gets a default assistant whose id is derived from the graph id
 * (UUID v5, as LangGraph Server does), so the same graph has the same assistant id in every
 * process and after restarts. Runs may name an assistant by id or by graph id.
 */
import { createHash } from "node:crypto";
import type { ServerContext } from "../context.js";
import { NotFoundError } from "../errors.js";
import type { AssistantRecord } from "../store/records.js";

/** LangGraph Server's namespace for default assistant ids. */
const GRAPH_NAMESPACE = "6ba7b821-9dad-11d1-80b4-00c04fd430c8";

function uuid5(name: string, namespace: string): string {
  const ns = Buffer.from(namespace.replace(/-/g, ""), "hex");
  const hash = createHash("sha1")
    .update(Buffer.concat([ns, Buffer.from(name, "utf8")]))
    .digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const defaultIds = new Map<string, string>();

export function defaultAssistantId(graphId: string): string {
  let id = defaultIds.get(graphId);
  if (id === undefined) defaultIds.set(graphId, (id = uuid5(graphId, GRAPH_NAMESPACE)));
  return id;
}

export async function ensureDefaultAssistants(ctx: ServerContext): Promise<void> {
  const now = new Date().toISOString();
  for (const graphId of ctx.graphs.ids()) {
    const assistant: AssistantRecord = {
      assistant_id: defaultAssistantId(graphId),
      graph_id: graphId,
      name: graphId,
      description: null,
      config: {},
      context: {},
      metadata: { created_by: "system" },
      version: 1,
      created_at: now,
      updated_at: now,
    };
    await ctx.store.assistants.insert(assistant);
  }
}

/** An assistant by id, or the default assistant of a graph id. */
export async function resolveAssistant(ctx: ServerContext, idOrGraph: string): Promise<AssistantRecord> {
  let found = await ctx.store.assistants.get(idOrGraph);
  if (!found && ctx.graphs.get(idOrGraph)) found = await ctx.store.assistants.get(defaultAssistantId(idOrGraph));
  if (!found) throw new NotFoundError("assistant", idOrGraph);
  return found;
}
