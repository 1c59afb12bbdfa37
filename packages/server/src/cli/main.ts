#!/usr/bin/env node
import { InterludeError } from "@interlude/core";
/**
 * `interlude`: serve graphs over HTTP, run workers, and look at or answer threads, against a
 * server (`--url`) or a local storage file (`--db`).
 */
import { Command, Option } from "commander";
import { recount } from "./commands/recount.js";
import { fork, resume } from "./commands/resume.js";
import { serve, worker } from "./commands/serve.js";
import { history, pending, threads } from "./commands/threads.js";
import { CliError, openTarget, type Target, type TargetOptions } from "./target.js";

const POSTGRES_CONNECTIONS = "--postgres-connections <n>";
const POSTGRES_CONNECTIONS_HELP =
  "PostgreSQL: the most connections this process opens (default 25, at least 7; or set INTERLUDE_POSTGRES_CONNECTIONS)";

const program = new Command("interlude")
  .description("Interlude: graphs that pause for humans, served over the LangGraph Server API.")
  .showHelpAfterError();

function targeted(command: Command): Command {
  return command
    .option("--url <url>", "a running Interlude server (or set INTERLUDE_URL)")
    .option("--api-key <key>", "API key for --url (or set INTERLUDE_API_KEY)")
    .option("--db <path>", "a local storage file instead of a server")
    .option("--config <path>", "langgraph.json with the graphs (needed with --db to run them)");
}

async function withTarget(options: TargetOptions, action: (target: Target) => Promise<string>): Promise<void> {
  const target = await openTarget(options);
  try {
    console.log(await action(target));
  } finally {
    await target.close();
  }
}

program
  .command("serve")
  .description("serve the graphs of a langgraph.json over HTTP")
  .option("--config <path>", "langgraph.json", "./langgraph.json")
  .option("--host <host>", "interface to listen on", "127.0.0.1")
  .option("--port <port>", "port (0: any free port)", "8123")
  .option("--postgres <url>", "PostgreSQL storage, shared by several processes (or set DATABASE_URL)")
  .option("--db <path>", "SQLite file (default: .interlude/interlude.sqlite beside the config)")
  .addOption(
    new Option(
      "--concurrency <n>",
      "PostgreSQL: runs executed at once by this process (0: none, stream and wait runs included; workers execute them)",
    ).default(undefined),
  )
  .option(POSTGRES_CONNECTIONS, POSTGRES_CONNECTIONS_HELP)
  .action((flags) => serve(flags));

program
  .command("worker")
  .description("execute queued runs and deadlines from PostgreSQL, beside the servers")
  .option("--config <path>", "langgraph.json", "./langgraph.json")
  .option("--postgres <url>", "PostgreSQL connection string (or set DATABASE_URL)")
  .option("--concurrency <n>", "runs executed at once")
  .option(POSTGRES_CONNECTIONS, POSTGRES_CONNECTIONS_HELP)
  .option("--host <host>", "interface the --port listener listens on", "127.0.0.1")
  .option("--port <port>", "serve GET /ok, /info and /metrics on this port, for probes and scrapes (0: any free port)")
  .action((flags) => worker(flags));

program
  .command("recount")
  .description("count the pending interrupts again (after servers were upgraded one by one: store/pending-counts.ts)")
  .option("--postgres <url>", "PostgreSQL storage (or set DATABASE_URL)")
  .option("--db <path>", "SQLite file")
  .action(async (flags) => console.log(await recount(flags)));

targeted(program.command("threads").description("list threads with their status"))
  .option("--status <status>", "idle, busy, interrupted or error")
  .option("--limit <n>", "how many", "20")
  .action((flags) => withTarget(flags, (t) => threads(t, flags)));

targeted(program.command("pending").description("list interrupts waiting for an answer, oldest first"))
  .option("--graph <id>", "only this graph")
  .option("--q <text>", "only those whose payload contains this text")
  .option("--limit <n>", "how many", "50")
  .action((flags) => withTarget(flags, (t) => pending(t, flags)));

targeted(program.command("resume").description("answer a thread's pending interrupt").argument("<thread>", "thread id"))
  .option("--id <interrupt>", "the interrupt to answer (needed when several wait)")
  .requiredOption("--value <json>", "the answer, as JSON")
  .option("--reason <text>", "why, recorded with the answer")
  .action((threadId, flags) => withTarget(flags, (t) => resume(t, threadId, flags)));

targeted(
  program
    .command("history")
    .description("a thread's checkpoints, newest first, with who answered what")
    .argument("<thread>", "thread id"),
)
  .option("--limit <n>", "how many", "20")
  .action((threadId, flags) => withTarget(flags, (t) => history(t, threadId, flags)));

targeted(
  program
    .command("fork")
    .description("branch a thread from one of its checkpoints")
    .argument("<thread>", "thread id")
    .argument("<checkpoint>", "checkpoint id (see history)"),
)
  .option("--values <json>", "state values to write in the fork")
  .option("--as-node <node>", "write them as if this node had")
  .option("--run", "continue the thread from the fork")
  .action((threadId, checkpointId, flags) => withTarget(flags, (t) => fork(t, threadId, checkpointId, flags)));

program.parseAsync().catch((error: unknown) => {
  const known = error instanceof CliError || error instanceof InterludeError;
  console.error(
    `interlude: ${known ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
  process.exit(1);
});
