/**
 * 3. Interrupt-and-resume round trip of a 3-node approval graph (propose -> review asks a
 * human -> finalize), one new thread per sample, on MemorySaver, a SQLite file and SQLite in
 * memory. Sample: invoke until paused + invoke(Command({ resume })) until finished. Between
 * the two, `getState` on the paused thread is timed as its own sample.
 * The SQLite file's round trip is timed again with both runtimes at durability "async",
 * LangGraph.js's default: each runtime's default is the comparison users see, this one is like
 * for like (Interlude's default, "sync", commits every step's checkpoint before the next step).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { approval } from "../lib/graphs.mjs";
import { alternate, now, row, scaled, summary } from "../lib/harness.mjs";
import { interlude, langgraph } from "../lib/libs.mjs";

export const title = "Interrupt-and-resume round trip, 3-node approval graph";

const THREADS = 2000;

const SAVERS = [
  { label: "MemorySaver", make: (lib) => new lib.MemorySaver() },
  { label: "SQLite file", make: (lib, dir) => lib.sqlite(join(dir, `${lib.name}.sqlite`)) },
  { label: "SQLite :memory:", make: (lib) => lib.sqlite(":memory:") },
  {
    label: 'SQLite file, both at durability "async"',
    make: (lib, dir) => lib.sqlite(join(dir, `${lib.name}-async.sqlite`)),
    run: { durability: "async" },
  },
];

export async function run() {
  const rows = [];
  const dir = mkdtempSync(join(tmpdir(), "interlude-bench-"));
  try {
    for (const saver of SAVERS) {
      const graphs = {};
      const savers = {};
      for (const lib of [interlude, langgraph])
        graphs[lib.name] = approval(lib, (savers[lib.name] = saver.make(lib, dir)));
      const getState = { il: [], lg: [] };
      let thread = 0;
      const sample = (lib, key) => async () => {
        const graph = graphs[lib.name];
        const config = { configurable: { thread_id: `rt-${thread++}` }, ...saver.run };
        const t0 = now();
        const paused = await graph.invoke({ request: { customer: "ACME", amount: 120 } }, config);
        const t1 = now();
        const state = await graph.getState(config);
        const t2 = now();
        const done = await graph.invoke(new lib.Command({ resume: "yes" }), config);
        const t3 = now();
        if (!paused.__interrupt__?.length || state.next[0] !== "review" || done.result !== "sent")
          throw new Error(`${lib.name}: unexpected round trip`);
        if (thread > 0) getState[key].push(t2 - t1);
        return t1 - t0 + (t3 - t2);
      };
      const stats = await alternate({
        iterations: scaled(THREADS, 20),
        warmup: 20,
        block: 50,
        il: sample(interlude, "il"),
        lg: sample(langgraph, "lg"),
      });
      // The targets are for each runtime's default. The like-for-like row (run options
      // given) has none, and times the round trip only: getState does not depend on durability.
      const likeForLike = saver.run !== undefined;
      rows.push(
        row({
          workload: 3,
          metric: `round trip, ${saver.label}`,
          unit: "ms",
          ...stats,
          target: likeForLike ? undefined : 10,
        }),
      );
      if (!likeForLike)
        rows.push(
          row({
            workload: 3,
            metric: `getState on a paused thread, ${saver.label}`,
            unit: "ms",
            il: summary(getState.il),
            lg: summary(getState.lg),
            target: 10,
          }),
        );
      for (const s of Object.values(savers)) await s.close?.();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
