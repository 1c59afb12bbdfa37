/**
 * 1. A linear chain of 100 nodes with MemorySaver, one small counter update per node.
 * Sample: one invoke on a new thread, divided by its 100 super-steps = runtime overhead per
 * super-step (the nodes themselves do next to nothing). A plain chain of async functions doing
 * the same updates is shown as the floor.
 */

import { chain } from "../lib/graphs.mjs";
import { alternate, now, row, scaled, summary, timed } from "../lib/harness.mjs";
import { interlude, langgraph } from "../lib/libs.mjs";

const NODES = 100;

export const title = "Linear chain of 100 nodes, MemorySaver";

export async function run() {
  const graphs = {};
  for (const lib of [interlude, langgraph]) graphs[lib.name] = chain(lib, NODES, new lib.MemorySaver());
  let thread = 0;
  const sample = (lib) => async () => {
    const config = { configurable: { thread_id: `chain-${thread++}` }, recursionLimit: 1000 };
    let result;
    const ms = await timed(async () => (result = await graphs[lib.name].invoke({ count: 0 }, config)));
    if (result.count !== NODES) throw new Error(`${lib.name}: count ${result.count}`);
    return ms / NODES;
  };
  const stats = await alternate({
    iterations: scaled(60, 5),
    warmup: 5,
    block: 5,
    il: sample(interlude),
    lg: sample(langgraph),
  });
  return [
    row({ workload: 1, metric: "chain of 100: overhead per super-step", unit: "ms", ...stats, target: 50 }),
    await plainFloor(),
  ];
}

/** The same 100 updates as plain awaited async functions: what a step costs with no runtime at all. */
function plainFloor() {
  const nodes = Array.from({ length: NODES }, () => async (s) => ({ count: s.count + 1 }));
  const samples = [];
  return (async () => {
    for (let r = 0; r < 2000; r++) {
      const start = now();
      let state = { count: 0 };
      for (const node of nodes) state = { ...state, ...(await node(state)) };
      samples.push((now() - start) / NODES);
    }
    const s = summary(samples);
    return {
      workload: 1,
      metric: "floor: plain async functions, per step",
      unit: "ms",
      il: s,
      lg: undefined,
      ratio: NaN,
    };
  })();
}
