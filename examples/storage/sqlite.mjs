// SQLite (the embedded default): one file, several processes on one machine may share it.
// Keep the last 20 checkpoints of a thread, and forget threads idle for 30 days.

import { SqliteSaver } from "@interlude/checkpoint-sqlite";
import { Command } from "@interlude/core";
import { builder } from "./approval-graph.mjs";

const saver = SqliteSaver.fromConnString(process.argv[2] ?? ".interlude/example.sqlite", { ttlMs: 30 * 86_400_000 });
const graph = builder.compile({ checkpointer: saver });
const config = { configurable: { thread_id: `sqlite-${Date.now()}` } };
await graph.invoke({ request: "refund 20 EUR" }, config);
console.log(await graph.invoke(new Command({ resume: true }), config));
console.log("pruned:", await saver.prune(config.configurable.thread_id, { keepLast: 20 }));
await saver.close();
