/**
 * Each runtime's PostgresSaver on the test server (`npm test` starts it: test/setup/servers.ts),
 * in a schema of its own per saver, so that scenarios with fixed thread ids do not meet:
 * `@langchain/langgraph-checkpoint-postgres` takes its schema as an option, Interlude's saver as
 * the connection's search_path. (`closeSaver` closes either: durable-savers.ts.)
 */
import pg from "pg";
import { testPostgresUrl } from "../../test/setup/urls.js";
import { isInterlude, type Runtime } from "./harness.js";

let schemas = 0;

/** A fresh schema on the test server. */
export async function freshSchema(): Promise<string> {
  const schema = `compat_${process.pid}_${++schemas}`;
  const admin = new pg.Client({ connectionString: testPostgresUrl() });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`).finally(() => admin.end());
  return schema;
}

/** The runtime's PostgresSaver on `schema` (a fresh one when not given), set up. */
export async function postgresSaverOf(lib: Runtime, schema?: string): Promise<any> {
  const where = schema ?? (await freshSchema());
  if (isInterlude(lib)) {
    const { PostgresSaver } = await import("@interlude/checkpoint-postgres");
    const pool = new pg.Pool({ connectionString: testPostgresUrl(), options: `-c search_path=${where}`, max: 2 });
    const saver = new PostgresSaver(pool);
    await saver.setup();
    return saver;
  }
  const { PostgresSaver } = await import("@langchain/langgraph-checkpoint-postgres");
  const saver = PostgresSaver.fromConnString(testPostgresUrl(), { schema: where });
  await saver.setup();
  return saver;
}
