import { createHash } from "node:crypto";
import type { createClient } from "redis";

type Client = ReturnType<typeof createClient>;

/** Runs a Lua script by its SHA, sending the source only when Redis does not have it cached. */
export async function runScript(client: Client, source: string, keys: string[], args: string[]): Promise<unknown> {
  const sha = shaOf(source);
  try {
    return await client.evalSha(sha, { keys, arguments: args });
  } catch (error) {
    if (!(error instanceof Error) || !error.message.includes("NOSCRIPT")) throw error;
    return client.eval(source, { keys, arguments: args });
  }
}

const shas = new Map<string, string>();
function shaOf(source: string): string {
  let sha = shas.get(source);
  if (!sha) shas.set(source, (sha = createHash("sha1").update(source).digest("hex")));
  return sha;
}
