/**
 * Each runtime's PostgresSaver on the test server (`npm test` starts it: test/setup/servers.ts),
 * in a schema of its own per saver, so that scenarios with fixed thread ids do not meet:
 * `@langchain/langgraph-checkpoint-postgres` takes its schema as an option, Interlude's saver here
 * as the connection's search_path (it takes the option too: postgres-graphs.test.ts, "a saver in
 * a schema of its own"; saver-storage.ts makes the schemas and closes the savers).
 */
import { testPostgresUrl } from "../../test/setup/urls.js";
import { isInterlude, type Runtime } from "./harness.js";
import { freshSchema, poolOn } from "./saver-storage.js";

/** The runtime's PostgresSaver class. */
export async function postgresSaverClass(lib: Runtime): Promise<any> {
  return isInterlude(lib)
    ? (await import("@interlude/checkpoint-postgres")).PostgresSaver
    : (await import("@langchain/langgraph-checkpoint-postgres")).PostgresSaver;
}

/** The runtime's PostgresSaver on `schema` (a fresh one when not given), set up. */
export async function postgresSaverOf(lib: Runtime, schema?: string): Promise<any> {
  const where = schema ?? (await freshSchema());
  if (isInterlude(lib)) {
    const { PostgresSaver } = await import("@interlude/checkpoint-postgres");
    const saver = new PostgresSaver(poolOn(where));
    await saver.setup();
    return saver;
  }
  const { PostgresSaver } = await import("@langchain/langgraph-checkpoint-postgres");
  const saver = PostgresSaver.fromConnString(testPostgresUrl(), { schema: where });
  await saver.setup();
  return saver;
}
