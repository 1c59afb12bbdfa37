/**
 * 4. Fan-out: START sends 100 `Send`s to one worker node, each appending to a list
 * (MemorySaver). Sample: one invoke on a new thread. Then the same with every 10th worker
 * interrupting: invoke until paused with 10 questions + one `Command({ resume: { id: answer } })`
 * answering all ten; sample = both invokes.
 */

import { fanout } from "../lib/graphs.mjs";
import { alternate, row, scaled, timed } from "../lib/harness.mjs";
import { interlude, langgraph } from "../lib/libs.mjs";

export const title = "Fan-out of 100 Send workers";

const WORKERS = 100;
const items = Array.from({ length: WORKERS }, (_, i) => i);

export async function run() {
  const plain = {};
  const asking = {};
  for (const lib of [interlude, langgraph]) {
    plain[lib.name] = fanout(lib, WORKERS, new lib.MemorySaver());
    asking[lib.name] = fanout(lib, WORKERS, new lib.MemorySaver(), 10);
  }
  let thread = 0;
  const runPlain = (lib) => async () => {
    let result;
    const ms = await timed(
      async () =>
        (result = await plain[lib.name].invoke({ items }, { configurable: { thread_id: `fan-${thread++}` } })),
    );
    if (result.results.length !== WORKERS) throw new Error(`${lib.name}: ${result.results.length} results`);
    return ms;
  };
  const runAsking = (lib) => async () => {
    const graph = asking[lib.name];
    const config = { configurable: { thread_id: `fan-ask-${thread++}` } };
    let result;
    const ms = await timed(async () => {
      const paused = await graph.invoke({ items }, config);
      const answers = Object.fromEntries(paused.__interrupt__.map((i) => [i.id, `ok-${i.value.item}`]));
      if (paused.__interrupt__.length !== 10) throw new Error(`${lib.name}: ${paused.__interrupt__.length} interrupts`);
      result = await graph.invoke(new lib.Command({ resume: answers }), config);
    });
    if (result.results.length !== WORKERS || result.results.filter((r) => r.answer.startsWith("ok-")).length !== 10)
      throw new Error(`${lib.name}: bad resume`);
    return ms;
  };
  const s1 = await alternate({
    iterations: scaled(60, 5),
    warmup: 5,
    block: 5,
    il: runPlain(interlude),
    lg: runPlain(langgraph),
  });
  const s2 = await alternate({
    iterations: scaled(40, 5),
    warmup: 3,
    block: 5,
    il: runAsking(interlude),
    lg: runAsking(langgraph),
  });
  return [
    row({ workload: 4, metric: "fan-out of 100 Sends, one invoke", unit: "ms", ...s1, target: 20 }),
    row({ workload: 4, metric: "same, 10 interrupt + one resume map", unit: "ms", ...s2, target: 20 }),
  ];
}
