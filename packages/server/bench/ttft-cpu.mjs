/**
 * CPU of one agent run before its model is called, in process (no HTTP): the TTFT benchmark's
 * agent shape (bench/fixtures/ttft-agent.mjs, a chat model streamed through `messages` mode) on
 * a SQLite file saver with group commit, one thread growing by two messages per run. Prints the
 * process CPU (all threads) from `stream()` to the model call (p50) and per whole run (mean; the
 * model answers at once), and the same in wall time, which a loaded machine makes noisy.
 *
 *   node packages/server/bench/ttft-cpu.mjs [--runs 400] [--threads 20]
 *
 * Profile it with `node --cpu-prof --cpu-prof-dir /tmp/prof packages/server/bench/ttft-cpu.mjs`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteSaver } from "@interlude/checkpoint-sqlite";
import { MessagesAnnotation, START, StateGraph } from "@interlude/core";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, AIMessageChunk } from "@langchain/core/messages";
import { ChatGenerationChunk } from "@langchain/core/outputs";
import { arg } from "./args.mjs";

let calledAt = 0;
let cpuAtCall;

class InstantModel extends BaseChatModel {
  _llmType() {
    return "instant-fake";
  }
  async _generate() {
    return { generations: [{ message: new AIMessage("done"), text: "done" }] };
  }
  async *_streamResponseChunks(_messages, _options, runManager) {
    calledAt = performance.now();
    cpuAtCall = process.cpuUsage();
    for (const word of ["a", " b", " c"]) {
      yield new ChatGenerationChunk({ text: word, message: new AIMessageChunk({ content: word }) });
      await runManager?.handleLLMNewToken(word);
    }
  }
}

const model = new InstantModel({});
const runs = Number(arg("runs", 400));
const threads = Number(arg("threads", 20));
const dir = mkdtempSync(join(tmpdir(), "interlude-ttft-cpu-"));
const saver = new SqliteSaver(join(dir, "bench.sqlite"), { groupCommit: true });
const graph = new StateGraph(MessagesAnnotation)
  .addNode("model", async (state) => ({ messages: [await model.invoke(state.messages)] }))
  .addEdge(START, "model")
  .compile({ checkpointer: saver });

async function run(i) {
  const config = { configurable: { thread_id: `t${i % threads}` }, streamMode: ["messages"], subgraphs: true };
  const input = { messages: [{ role: "user", content: `turn ${i}` }] };
  const cpu = process.cpuUsage();
  const start = performance.now();
  for await (const _ of await graph.stream(input, config));
  const cpuBefore = cpuAtCall.user + cpuAtCall.system - cpu.user - cpu.system;
  return [calledAt - start, performance.now() - start, cpuBefore];
}

const measure = async (n) => {
  const before = [];
  const whole = [];
  const cpuBefore = [];
  const cpu = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const [b, w, c] = await run(i);
    before.push(b);
    whole.push(w);
    cpuBefore.push(c);
  }
  const used = process.cpuUsage(cpu);
  const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return {
    before: median(before) * 1000,
    whole: median(whole) * 1000,
    cpuBefore: median(cpuBefore),
    cpu: (used.user + used.system) / n,
  };
};

try {
  await measure(Math.min(100, runs)); // warm-up
  const r = await measure(runs);
  if (process.env.TTFT_STATS) console.log(saver.stats);
  console.log(
    `[ttft-cpu] ${runs} runs on ${threads} threads (${Math.round((2 * runs) / threads)} messages each at the end): ` +
      `CPU p50 ${r.cpuBefore.toFixed(0)} µs to the model call, ${r.cpu.toFixed(0)} µs per run (mean); ` +
      `wall p50 ${r.before.toFixed(0)} µs to the model call, ${r.whole.toFixed(0)} µs per run`,
  );
} finally {
  saver.close?.();
  rmSync(dir, { recursive: true, force: true });
}
