/**
 * Interlude alone on one workload's graph, for `node --cpu-prof bench/profile.mjs <1|2|3|4>`.
 * Then `node bench/lib/top.mjs <file.cpuprofile>` lists the hottest functions.
 */
import { approval, chain, fanout, loop } from "./lib/graphs.mjs";
import * as IL from "interlude";
import { SqliteSaver } from "@interlude/checkpoint-sqlite";

const lib = { ...IL, sqlite: (path) => SqliteSaver.fromConnString(path) };

const which = process.argv[2] ?? "1";
const seconds = Number(process.argv[3] ?? 5);
const saverKind = process.argv[4] ?? "memory";
const saver = () => (saverKind === "memory" ? new lib.MemorySaver() : lib.sqlite(saverKind === "sqlite-memory" ? ":memory:" : `/tmp/interlude-profile-${process.pid}.sqlite`));
let thread = 0;
const config = () => ({ configurable: { thread_id: `p${thread++}` }, recursionLimit: 2000 });
const items = Array.from({ length: 100 }, (_, i) => i);
const graphs = {
  1: [chain(lib, 100, saver()), () => ({ count: 0 })],
  2: [loop(lib, 1000, saver()), () => ({ count: 0 })],
  3: [approval(lib, saver()), () => ({ request: { customer: "ACME", amount: 1 } })],
  4: [fanout(lib, 100, saver()), () => ({ items })],
  "4i": [fanout(lib, 100, saver(), 10), () => ({ items })],
};
const [graph, input] = graphs[which];
const end = Date.now() + seconds * 1000;
let runs = 0;
while (Date.now() < end) {
  const c = config();
  const out = await graph.invoke(input(), c);
  if (out.__interrupt__) {
    const resume = which === "4i" ? Object.fromEntries(out.__interrupt__.map((i) => [i.id, "ok"])) : "yes";
    await graph.getState(c);
    await graph.invoke(new lib.Command({ resume }), c);
  }
  runs++;
}
console.log(`${runs} runs in ${seconds} s: ${((seconds * 1000) / runs).toFixed(3)} ms per run`);
