/**
 * The two runtimes behind one face, so that every workload builds the very same graph with
 * each: `lib.StateGraph`, `lib.Annotation`, ... plus `sqlite(path)` and `postgres(pool)`.
 */

import { SqliteSaver as ILSqliteSaver } from "@interlude/checkpoint-sqlite";
import * as IL from "@interlude/core";
import * as ILChannels from "@interlude/core/channels";
import * as ILPregel from "@interlude/core/pregel";
import * as LG from "@langchain/langgraph";
import * as LGChannels from "@langchain/langgraph/channels";
import * as LGPregel from "@langchain/langgraph/pregel";
import { SqliteSaver as LGSqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";

function face(name, m, SqliteSaver, loadPostgres, low) {
  return {
    // The low-level API: Pregel, Channel, LastValue, ...
    low,
    name,
    StateGraph: m.StateGraph,
    Annotation: m.Annotation,
    START: m.START,
    END: m.END,
    interrupt: m.interrupt,
    Command: m.Command,
    Send: m.Send,
    MemorySaver: m.MemorySaver,
    sqlite: (path) => SqliteSaver.fromConnString(path),
    postgres: async (pool) => {
      const PostgresSaver = await loadPostgres();
      const saver = new PostgresSaver(pool);
      await saver.setup();
      return saver;
    },
  };
}

export const interlude = face(
  "Interlude",
  IL,
  ILSqliteSaver,
  // BENCH_PG_SAVER: another build's saver (a path to its dist/index.js), to compare builds.
  async () => (await import(process.env.BENCH_PG_SAVER ?? "@interlude/checkpoint-postgres")).PostgresSaver,
  { ...ILPregel, ...ILChannels },
);
export const langgraph = face(
  "LangGraph.js",
  LG,
  LGSqliteSaver,
  async () => (await import("@langchain/langgraph-checkpoint-postgres")).PostgresSaver,
  { ...LGPregel, ...LGChannels },
);
export const both = [interlude, langgraph];
