// One step of a reviewed thread, in a process of its own:
//   node step.mjs start  <store> <thread> "<request>"    prints the interrupt's value (JSON)
//   node step.mjs resume <store> <thread> '<decision>'   prints the conversation (JSON)
// <store> is a SQLite file or a postgres:// URL; SEND_LOG names the file each real send is logged to.
import { Command } from "@interlude/core";
import { buildAgent } from "./agent.mjs";
import { sendEmailTool } from "./email-tool.mjs";
import { chatModel } from "./model.mjs";

const [command, store, threadId, argument] = process.argv.slice(2);

async function openSaver() {
  if (store.startsWith("postgres")) {
    const { PostgresSaver } = await import("@interlude/checkpoint-postgres");
    const saver = PostgresSaver.fromConnString(store);
    await saver.setup();
    return saver;
  }
  const { SqliteSaver } = await import("@interlude/checkpoint-sqlite");
  return SqliteSaver.fromConnString(store);
}

const saver = await openSaver();
const graph = buildAgent({
  model: await chatModel(),
  tools: [sendEmailTool(process.env.SEND_LOG)],
  checkpointer: saver,
});
const config = { configurable: { thread_id: threadId } };
try {
  if (command === "start") {
    const paused = await graph.invoke({ messages: [{ role: "user", content: argument }] }, config);
    // A real model may answer without proposing a call: then there is nothing to review.
    console.log(JSON.stringify(paused.__interrupt__?.[0]?.value ?? null));
  } else {
    const done = await graph.invoke(new Command({ resume: { decisions: [JSON.parse(argument)] } }), config);
    const messages = done.messages.map((m) => ({ type: m.getType(), content: m.content, tool_calls: m.tool_calls }));
    console.log(JSON.stringify(messages));
  }
} finally {
  await saver.close();
}
