/**
 * 2. One node looping 1,000 super-steps through a conditional edge, MemorySaver.
 * Sample: one invoke on a new thread divided by its 1,000 super-steps.
 */

import { loop } from "../lib/graphs.mjs";
import { alternate, row, scaled, timed } from "../lib/harness.mjs";
import { interlude, langgraph } from "../lib/libs.mjs";

const STEPS = 1000;

export const title = "One node looping 1,000 super-steps";

export async function run() {
  const graphs = {};
  for (const lib of [interlude, langgraph]) graphs[lib.name] = loop(lib, STEPS, new lib.MemorySaver());
  let thread = 0;
  const sample = (lib) => async () => {
    const config = { configurable: { thread_id: `loop-${thread++}` }, recursionLimit: STEPS + 10 };
    let result;
    const ms = await timed(async () => (result = await graphs[lib.name].invoke({ count: 0 }, config)));
    if (result.count !== STEPS) throw new Error(`${lib.name}: count ${result.count}`);
    return ms / STEPS;
  };
  const stats = await alternate({
    iterations: scaled(12, 3),
    warmup: 2,
    block: 2,
    il: sample(interlude),
    lg: sample(langgraph),
  });
  return [
    row({ workload: 2, metric: "loop of 1,000 steps: overhead per super-step", unit: "ms", ...stats, target: 50 }),
  ];
}
