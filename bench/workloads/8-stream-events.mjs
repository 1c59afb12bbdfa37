/**
 * 8. `streamEvents(input, { version: "v3" })` of a chain of 20 nodes with MemorySaver, read to
 * its end (every protocol event iterated, then `await run.output`). Sample: one run on a new
 * thread divided by its 20 super-steps = the run's cost per step with the v3 run stream (its
 * conversion to protocol events, the lifecycle and the projections) on top. The same graph's
 * `stream()` in the v3 modes is shown beside it, for what the run stream adds.
 */

import { chain } from "../lib/graphs.mjs";
import { alternate, row, scaled, timed } from "../lib/harness.mjs";
import { interlude, langgraph } from "../lib/libs.mjs";

const NODES = 20;
const MODES = ["values", "updates", "messages", "tools", "custom", "tasks"];

export const title = "streamEvents v3 of a chain of 20 nodes, MemorySaver";

export async function run() {
  const graphs = {};
  for (const lib of [interlude, langgraph]) graphs[lib.name] = chain(lib, NODES, new lib.MemorySaver());
  let thread = 0;
  const config = () => ({ configurable: { thread_id: `v3-${thread++}` }, recursionLimit: 1000 });
  const v3 = (lib) => async () => {
    let output;
    let events = 0;
    const ms = await timed(async () => {
      const run = await graphs[lib.name].streamEvents({ count: 0 }, { version: "v3", ...config() });
      for await (const _ of run) events++;
      output = await run.output;
    });
    if (output.count !== NODES || events < NODES * 3)
      throw new Error(`${lib.name}: count ${output.count}, ${events} events`);
    return ms / NODES;
  };
  const streamed = (lib) => async () => {
    let chunks = 0;
    const ms = await timed(async () => {
      const stream = await graphs[lib.name].stream({ count: 0 }, { streamMode: MODES, subgraphs: true, ...config() });
      for await (const _ of stream) chunks++;
    });
    if (chunks < NODES * 3) throw new Error(`${lib.name}: ${chunks} chunks`);
    return ms / NODES;
  };
  const options = { iterations: scaled(60, 5), warmup: 5, block: 5 };
  return [
    row({
      workload: 8,
      metric: "streamEvents v3, read to the end: per super-step",
      unit: "ms",
      ...(await alternate({ ...options, il: v3(interlude), lg: v3(langgraph) })),
    }),
    row({
      workload: 8,
      metric: "stream() in the same modes, with subgraphs: per super-step",
      unit: "ms",
      ...(await alternate({ ...options, il: streamed(interlude), lg: streamed(langgraph) })),
    }),
  ];
}
