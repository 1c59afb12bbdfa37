/**
 * `npm run bench:micro`: the costs the core's unit tests used to time, printed instead of asserted.
 *   - MemorySaver.put of a one-channel step, early in a thread and after 20,000 steps (a put whose
 *     cost grows with history shows as a late/early ratio well above 1), and getTuple of the head;
 *   - the serialiser against JSON.stringify on a small plain object.
 */
import { JsonSerializer, MemorySaver, newCheckpointId } from "@interlude/core";

const micros = async (count, fn) => {
  const started = performance.now();
  for (let i = 0; i < count; i++) await fn(i);
  return ((performance.now() - started) * 1000) / count;
};

const saver = new MemorySaver();
let config = { configurable: { thread_id: "micro" } };
const values = { a: 0, b: "unchanged", c: [1, 2, 3] };
const versions = { a: 1, b: 1, c: 1 };
let n = 0;
const step = async () => {
  const i = n++;
  values.a = i;
  versions.a = i + 2;
  const checkpoint = {
    v: 1,
    id: newCheckpointId(),
    ts: "2024-01-01T00:00:00.000Z",
    channel_values: values,
    channel_versions: versions,
    versions_seen: { n: { a: i } },
  };
  config = await saver.put(
    config,
    checkpoint,
    { source: "loop", step: i, parents: {} },
    i === 0 ? { ...versions } : { a: i + 2 },
  );
};
await micros(5_000, step);
const early = await micros(5_000, step);
await micros(10_000, step);
const late = await micros(5_000, step);
const get = await micros(20_000, () => saver.getTuple(config));

const serde = new JsonSerializer();
const value = {
  messages: [{ role: "user", content: "hello there", id: 1 }],
  count: 3,
  nested: { a: [1, 2, 3], b: "x" },
};
const time = (fn) => {
  for (let i = 0; i < 20_000; i++) fn();
  const started = performance.now();
  for (let i = 0; i < 100_000; i++) fn();
  return performance.now() - started;
};
const ratio = Math.min(...[0, 1, 2].map(() => time(() => serde.dumps(value)) / time(() => JSON.stringify(value))));

const rows = [
  ["MemorySaver.put, steps 5,000-10,000", `${early.toFixed(2)} µs`],
  ["MemorySaver.put, steps 20,000-25,000", `${late.toFixed(2)} µs (late/early ${(late / early).toFixed(2)})`],
  ["MemorySaver.getTuple of the head", `${get.toFixed(2)} µs`],
  ["serde.dumps / JSON.stringify, small object", `${ratio.toFixed(2)}x`],
];
for (const [metric, figure] of rows) console.log(`${metric.padEnd(45)} ${figure}`);
