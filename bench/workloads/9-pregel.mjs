/**
 * 9. The low-level API (`@langchain/langgraph/pregel`, `@interlude/core/pregel`), MemorySaver:
 * a chain of 100 actors, each adding one to the value the one before wrote (its state grows to
 * 101 channels, which every checkpoint records), and a loop of one actor re-writing one channel
 * 1,000 times. Sample: one invoke on a new thread, divided by its super-steps.
 */

import { pregelChain, pregelLoop } from "../lib/graphs.mjs";
import { alternate, row, scaled, timed } from "../lib/harness.mjs";
import { interlude, langgraph } from "../lib/libs.mjs";

const NODES = 100;
const STEPS = 1000;

export const title = "Low-level Pregel: chain of 100 actors, loop of 1,000 steps, MemorySaver";

/** Per super-step time of `make`'s graph, run on a new thread per sample; `steps` it takes, `expected` it returns. */
async function perStep(make, steps, expected, iterations) {
  const graphs = {};
  for (const lib of [interlude, langgraph]) graphs[lib.name] = make(lib, new lib.MemorySaver());
  let thread = 0;
  const sample = (lib) => async () => {
    const config = { configurable: { thread_id: `pregel-${thread++}` }, recursionLimit: steps + 10 };
    let result;
    const ms = await timed(async () => (result = await graphs[lib.name].invoke(0, config)));
    if (result !== expected) throw new Error(`${lib.name}: result ${result}`);
    return ms / steps;
  };
  return alternate({ iterations, warmup: 5, block: 5, il: sample(interlude), lg: sample(langgraph) });
}

export async function run() {
  const chain = await perStep((lib, saver) => pregelChain(lib, NODES, saver), NODES, NODES, scaled(60, 5));
  const loop = await perStep((lib, saver) => pregelLoop(lib, STEPS, saver), STEPS, STEPS, scaled(20, 3));
  return [
    row({ workload: 9, metric: "Pregel chain of 100: overhead per super-step", unit: "ms", ...chain, target: 50 }),
    row({
      workload: 9,
      metric: "Pregel loop of 1,000 steps: overhead per super-step",
      unit: "ms",
      ...loop,
      target: 50,
    }),
  ];
}
