#!/usr/bin/env node
// Terminal demo of a human-in-the-loop approval on SQLite.
//   npm run demo                       # first run: proposes a plan and pauses for review
//   npm run demo                       # same command again: asks for the decision and resumes
//   npm run demo -- --answer approve   # answer without a terminal (approve | reject | edit:<new plan>)
//   npm run demo -- --thread t2 --db ./other.sqlite
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { createInterface } from "node:readline/promises";
import { parseArgs } from "node:util";
import { SqliteSaver } from "@interlude/checkpoint-sqlite";
import { Command } from "@interlude/core";
import { builder } from "./graph.mjs";

const { values: args } = parseArgs({
  options: {
    thread: { type: "string", default: "demo" },
    db: { type: "string", default: ".interlude/demo.sqlite" },
    answer: { type: "string" },
    request: { type: "string", default: "Customer 4711 was charged twice" },
  },
});

const dbPath = resolve(args.db);
mkdirSync(dirname(dbPath), { recursive: true });
const checkpointer = SqliteSaver.fromConnString(dbPath);
const graph = builder.compile({ checkpointer });
const config = { configurable: { thread_id: args.thread } };

function parseAnswer(text) {
  const answer = text.trim();
  if (/^a(pprove)?$/i.test(answer)) return { action: "approve" };
  if (/^r(eject)?$/i.test(answer)) return { action: "reject" };
  const edit = answer.match(/^e(?:dit)?(?::(.*))?$/is);
  if (edit) return { action: "edit", plan: edit[1]?.trim() || undefined };
  return undefined;
}

async function ask(pending) {
  console.log(`\n${pending.value.question}\n${pending.value.plan}\n`);
  if (args.answer) return parseAnswer(args.answer);
  if (!process.stdin.isTTY) return undefined;
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const reply = await rl.question("[a]pprove, [e]dit, [r]eject (Enter leaves it paused): ");
    const answer = parseAnswer(reply);
    if (answer?.action === "edit" && !answer.plan)
      answer.plan = (await rl.question("New plan: ")).replace(/\\n/g, "\n");
    return answer;
  } finally {
    rl.close();
  }
}

async function main() {
  let state = await graph.getState(config);
  if (state.next.length === 0 && state.metadata) {
    console.log(
      `Thread "${args.thread}" has finished:\n${state.values.outcome}\n(Start another with --thread <new id>.)`,
    );
    return;
  }
  if (!state.metadata) {
    console.log(`Thread "${args.thread}": proposing a plan for "${args.request}" ...`);
    await graph.invoke({ request: args.request }, config);
    state = await graph.getState(config);
  }
  const pending = state.interrupts[0];
  const answer = await ask(pending);
  if (!answer) {
    const hint = args.answer
      ? `"${args.answer}" is not an answer (approve | reject | edit:<plan>).`
      : "No answer given.";
    console.log(`${hint} The thread stays paused in ${args.db}; run the same command again to review it.`);
    process.exitCode = args.answer ? 2 : 0;
    return;
  }
  if (answer.action === "edit" && !answer.plan) answer.plan = pending.value.plan;
  const result = await graph.invoke(new Command({ resume: answer, by: process.env.USER ?? "terminal" }), config);
  console.log(`\n${result.outcome}`);
}

try {
  await main();
} finally {
  await checkpointer.close();
}
