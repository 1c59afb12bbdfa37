// Redis: REDIS_URL=redis://host:6379. Threads can expire on their own with ttlMs.

import { RedisSaver } from "@interlude/checkpoint-redis";
import { Command } from "@interlude/core";
import { builder } from "./approval-graph.mjs";

const saver = RedisSaver.fromUrl(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", { ttlMs: 7 * 86_400_000 });
const graph = builder.compile({ checkpointer: saver });
const config = { configurable: { thread_id: `redis-${Date.now()}` } };
await graph.invoke({ request: "refund 20 EUR" }, config);
console.log(await graph.invoke(new Command({ resume: true }), config));
await saver.close();
