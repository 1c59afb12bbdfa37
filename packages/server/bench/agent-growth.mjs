/**
 * What an agent's run costs as its conversation grows: `clients` threads of a LangChain chat
 * agent (bench/fixtures/ttft-agent.mjs, its model answering at once), each sent `turns` human
 * messages of `message-bytes` through `POST /threads/{id}/runs/wait`. Every run loads the
 * conversation as LangChain messages, appends the human message and the model's answer, stores
 * them and returns the whole state. Printed for each `bucket` of turns: the messages and kB of
 * the state after it, runs/s and the server's CPU per run; at the end the server's CPU per `GET
 * /threads/{id}` and per `values` stream of one more turn (the SDK's default stream mode).
 *
 * `node packages/server/bench/agent-growth.mjs [--postgres] [--clients 10] [--turns 120] [--bucket 30] [--message-bytes 1000]`
 *
 * PERFORMANCE.md, "Large responses, and messages written without their toJSON".
 */
import { fileURLToPath } from "node:url";
import { arg } from "./args.mjs";
import { httpClient, reviewText } from "./http-load.mjs";
import { throwawayDatabase } from "./postgres-stats.mjs";
import { startServerProcess } from "./processes.mjs";

const postgres = process.argv.includes("--postgres");
const clients = Number(arg("clients", 10));
const turns = Number(arg("turns", 120));
const bucket = Number(arg("bucket", 30));
const messageBytes = Number(arg("message-bytes", 1000));
const CONFIG = fileURLToPath(new URL("./fixtures/ttft.json", import.meta.url));
/** The fixture's model, answering at once with a short reply. */
const INSTANT = { TTFT_FIRST_TOKEN_MS: "0", TTFT_TOKEN_MS: "0" };

async function main() {
  const database = postgres ? await throwawayDatabase("interlude_agent") : undefined;
  const server = await startServerProcess({
    config: CONFIG,
    env: INSTANT,
    ...(database ? { postgres: database.url } : {}),
  });
  const http = httpClient(server.url, clients);
  const cpuPer = async (count, body) => {
    const before = server.cpuMs();
    await body();
    return (server.cpuMs() - before) / count;
  };
  try {
    const threads = [];
    for (let c = 0; c < clients; c++) threads.push((await http.request("POST", "/threads", {})).thread_id);
    let sent = 0;
    /** The next human message of thread `c`, different every time. */
    const input = (c) => ({ messages: [{ role: "human", content: reviewText(messageBytes, c * 100_000 + sent++) }] });
    const turn = (threadId, c) =>
      http.request("POST", `/threads/${threadId}/runs/wait`, { assistant_id: "agent", input: input(c) });
    console.log(
      `[agent] ${postgres ? "PostgreSQL (fsync on)" : "SQLite file"}, 1 server process, ${clients} threads, human messages of ${messageBytes} bytes`,
    );
    let last;
    for (let done = 0; done < turns; done += bucket) {
      const started = performance.now();
      const ms = await cpuPer(clients * bucket, () =>
        Promise.all(
          threads.map(async (id, c) => {
            for (let i = 0; i < bucket; i++) last = await turn(id, c);
          }),
        ),
      );
      const rate = (clients * bucket) / ((performance.now() - started) / 1000);
      const kb = JSON.stringify(last).length / 1024;
      console.log(
        `turns ${done + 1}-${done + bucket} (${last.messages.length} messages, ${kb.toFixed(0)} kB after): ${rate.toFixed(0)} runs/s, server CPU ${ms.toFixed(2)} ms per run`,
      );
    }
    const reads = 200;
    const getMs = await cpuPer(reads, async () => {
      for (let i = 0; i < reads; i++) await http.request("GET", `/threads/${threads[i % clients]}`);
    });
    console.log(`GET /threads/{id}, one client: server CPU ${getMs.toFixed(2)} ms per read`);
    const streamMs = await cpuPer(clients, async () => {
      for (const [c, id] of threads.entries()) {
        const events = await http.text("POST", `/threads/${id}/runs/stream`, {
          assistant_id: "agent",
          input: input(c),
          stream_mode: ["values"],
        });
        if (!events.includes("event: values")) throw new Error(`${id}: the stream sent no values event`);
      }
    });
    console.log(`a turn through runs/stream in values mode, one client: server CPU ${streamMs.toFixed(2)} ms per run`);
  } finally {
    http.close();
    await server.stop();
    await database?.stop();
  }
}

await main();
