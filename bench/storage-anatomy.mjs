/**
 * Where a SQLite file's bytes go, for workload 5's chat thread on Interlude alone:
 * `node bench/storage-anatomy.mjs [--text=padded|english] [--length=175] [--steps=500] [--fanout=32]`.
 * Prints the bytes per step between 200 steps and `steps` (as workload 5 does), then for the
 * file at `steps`, each table's pages, payload, unused bytes and overflow pages (SQLite's
 * `dbstat` table) and each column's stored bytes.
 *
 * `--text=english`: each message is `--length` characters (175 by default) of English words
 * instead of workload 5's padding with "x" (which deflate shrinks ~40x, where English text shrinks ~3x).
 */
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { SqliteSaver } from "@interlude/checkpoint-sqlite";
import { chat } from "./lib/graphs.mjs";
import { interlude } from "./lib/libs.mjs";

const { values: args } = parseArgs({
  options: {
    text: { type: "string", default: "padded" },
    length: { type: "string", default: "175" },
    steps: { type: "string", default: "500" },
    fanout: { type: "string" },
  },
});
const steps = Number(args.steps);
const length = Number(args.length);
const options = args.fanout ? { fanout: Number(args.fanout) } : {};

// A fixed pseudo-random sequence of common English words, so that every run stores the same bytes.
const WORDS = (
  "the of and to in is you that it he was for on are as with his they at be this have from or one had by " +
  "word but not what all were we when your can said there use an each which she do how their if will up " +
  "other about out many then them these so some her would make like him into time has look two more write " +
  "go see number no way could people my than first water been call who oil its now find long down day did"
).split(" ");
let seed = 7;
function englishMessage(n) {
  let text = `message ${n} `;
  while (text.length < length) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    text += `${WORDS[seed % WORDS.length]} `;
  }
  return { role: "user", text: text.slice(0, length) };
}

function englishChat(lib, n, saver) {
  const State = lib.Annotation.Root({
    messages: lib.Annotation({ reducer: (a, b) => a.concat(b), default: () => [] }),
  });
  return new lib.StateGraph(State)
    .addNode("say", (s) => ({ messages: [englishMessage(s.messages.length)] }))
    .addEdge(lib.START, "say")
    .addConditionalEdges("say", (s) => (s.messages.length < n ? "say" : lib.END))
    .compile({ checkpointer: saver });
}

async function thread(dir, n) {
  const path = join(dir, `anatomy-${n}.sqlite`);
  const saver = new SqliteSaver(path, options);
  const graph = args.text === "english" ? englishChat(interlude, n, saver) : chat(interlude, n, saver);
  await graph.invoke({ messages: [] }, { configurable: { thread_id: "chat" }, recursionLimit: n + 10 });
  await saver.close();
  let bytes = 0;
  for (const suffix of ["", "-wal"]) if (existsSync(path + suffix)) bytes += statSync(path + suffix).size;
  return { path, bytes };
}

const COLUMNS = {
  checkpoints: ["thread_id", "checkpoint_ns", "checkpoint_id", "parent_id", "created_at", "record", "metadata"],
  blobs: ["thread_id", "checkpoint_ns", "channel", "version", "base", "data"],
  blob_parts: ["thread_id", "checkpoint_ns", "channel", "version", "part", "data"],
  writes: ["thread_id", "checkpoint_ns", "checkpoint_id", "task_id", "channel", "data"],
};

const dir = mkdtempSync(join(tmpdir(), "interlude-anatomy-"));
try {
  const before = await thread(dir, 200);
  const after = await thread(dir, steps);
  console.log(
    `${args.text} messages: ${after.bytes} B after ${steps} steps, ` +
      `${((after.bytes - before.bytes) / (steps - 200)).toFixed(0)} B per step over steps 200-${steps}`,
  );
  // The saver's own connection, so that the bench needs no driver of its own.
  const reader = new SqliteSaver(after.path);
  const db = reader.db;
  console.table(
    db
      .prepare(
        `SELECT name, COUNT(*) AS pages, SUM(ncell) AS cells, SUM(payload) AS payload, SUM(unused) AS unused,
           SUM(pagetype = 'overflow') AS overflow FROM dbstat GROUP BY name ORDER BY SUM(pgsize) DESC`,
      )
      .all(),
  );
  for (const [table, columns] of Object.entries(COLUMNS)) {
    const sums = columns.map((c) => `SUM(LENGTH(${c})) AS ${c}`).join(", ");
    console.log(table, db.prepare(`SELECT COUNT(*) AS rows, ${sums} FROM ${table}`).get());
  }
  await reader.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
