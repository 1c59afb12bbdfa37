// PostgreSQL: several processes or machines share threads. DATABASE_URL=postgres://user@host/db

import { PostgresSaver } from "@interlude/checkpoint-postgres";
import { Command } from "@interlude/core";
import { builder } from "./approval-graph.mjs";

const saver = PostgresSaver.fromConnString(process.env.DATABASE_URL ?? "postgres://localhost/interlude");
await saver.setup(); // runs the versioned migrations once; safe to call from every process
const graph = builder.compile({ checkpointer: saver });
const config = { configurable: { thread_id: `pg-${Date.now()}` } };
await graph.invoke({ request: "refund 20 EUR" }, config);
console.log(await graph.invoke(new Command({ resume: true }), config));
console.log("pruned:", await saver.prune({ olderThan: 90 * 86_400_000 }));
await saver.close();
