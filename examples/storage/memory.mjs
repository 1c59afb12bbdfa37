// In memory: for tests and development. Paused threads are lost when the process exits.
import { Command, MemorySaver } from "@interlude/core";
import { builder } from "./approval-graph.mjs";

const graph = builder.compile({ checkpointer: new MemorySaver() });
const config = { configurable: { thread_id: "memory-1" } };
await graph.invoke({ request: "refund 20 EUR" }, config);
console.log(await graph.invoke(new Command({ resume: true }), config));
