/**
 * What an answer costs as its thread's state grows, as an agent's conversation does: each of
 * `clients` threads of the `loop` fixture graph is answered `rounds` times through `POST
 * /threads/{id}/runs/wait`, every answer `answer-bytes` of prose-like text that the graph appends
 * to its state. Printed for each `bucket` of answers: the state's size, answers/s, the server's
 * CPU and the bytes written to storage per answer; on PostgreSQL also its CPU and the WAL per
 * answer. At the end: the WAL of a few more answers by table (pg_walinspect), or on SQLite the
 * file's bytes per answer by table (`dbstat`); and what reading the threads costs (`GET
 * /threads/{id}`, a search listing 10, and one filtering on a field of their values; one client).
 *
 * `node packages/server/bench/state-growth.mjs [--postgres] [--clients 20] [--rounds 200] [--bucket 50] [--answer-bytes 1000]`
 *
 * Behaviour, not speed, is what the tests check; this prints figures (PERFORMANCE.md, "An
 * answer's cost as the state grows").
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { arg } from "./args.mjs";
import { httpClient, reviewText } from "./http-load.mjs";
import { throwawayDatabase } from "./postgres-stats.mjs";
import { postgresCpuMs, postmasterOf } from "./proc.mjs";
import { startServerProcess } from "./processes.mjs";

const postgres = process.argv.includes("--postgres");
const clients = Number(arg("clients", 20));
const rounds = Number(arg("rounds", 200));
const bucket = Number(arg("bucket", 50));
const answerBytes = Number(arg("answer-bytes", 1000));
/** Answers given after the buckets, whose WAL is read record by record. */
const INSPECTED = 5;

/** Bytes process `pid` has had written to storage so far (its page-cache writes, not its sockets'). */
function writtenBytes(pid) {
  const line = readFileSync(`/proc/${pid}/io`, "utf8").match(/^write_bytes: (\d+)$/m);
  return Number(line?.[1] ?? 0);
}

/** Milliseconds per call of `request(i)`, over `count` calls one after another. */
async function msEach(count, request) {
  const started = performance.now();
  for (let i = 0; i < count; i++) await request(i);
  return (performance.now() - started) / count;
}

/** The database's side: its CPU, WAL position and WAL by table (PostgreSQL), or nothing (SQLite: in the server). */
async function databaseProbe(url) {
  if (!url) return undefined;
  const { default: pg } = await import("pg");
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  const postmaster = await postmasterOf(pool);
  await pool.query("CREATE EXTENSION IF NOT EXISTS pg_walinspect");
  const lsn = async () => (await pool.query("SELECT pg_current_wal_lsn() AS lsn")).rows[0].lsn;
  return {
    cpuMs: () => (postmaster === undefined ? 0 : postgresCpuMs(postmaster)),
    lsn,
    walBytes: async (from) =>
      Number((await pool.query("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1) AS d", [from])).rows[0].d),
    /** WAL between two positions by relation; a TOAST table is named by the table it belongs to. */
    walByTable: async (from, to) =>
      (
        await pool.query(
          `WITH w AS (
             SELECT r.oid, r.relname, sum(record_length)::bigint AS bytes
               FROM pg_get_wal_records_info($1, $2) w
               LEFT JOIN pg_class r ON r.relfilenode::text = substring(w.block_ref from 'rel [0-9]+/[0-9]+/([0-9]+)')
              GROUP BY 1, 2)
           SELECT coalesce(owner.relname || ' (its TOAST)', index_owner.relname || ' (its TOAST index)', w.relname, '(no table)') AS relation,
                  sum(bytes)::bigint AS bytes
             FROM w
             LEFT JOIN pg_class owner ON owner.reltoastrelid = w.oid
             LEFT JOIN pg_index i ON i.indexrelid = w.oid
             LEFT JOIN pg_class index_owner ON index_owner.reltoastrelid = i.indrelid
            GROUP BY 1 ORDER BY 2 DESC LIMIT 8`,
          [from, to],
        )
      ).rows,
    close: () => pool.end(),
  };
}

/** The SQLite file's bytes (with its WAL) and its largest tables' pages (`dbstat`), read beside the server. */
async function fileBytes(path) {
  const { default: Database } = await import("better-sqlite3");
  const reader = new Database(path, { readonly: true });
  try {
    const tables = reader
      .prepare("SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC LIMIT 6")
      .all();
    const size = (file) => (existsSync(file) ? statSync(file).size : 0);
    return { total: size(path) + size(`${path}-wal`), tables };
  } finally {
    reader.close();
  }
}

async function main() {
  const database = postgres ? await throwawayDatabase("interlude_growth") : undefined;
  const dir = postgres ? undefined : mkdtempSync(join(tmpdir(), "interlude-growth-"));
  const file = dir && join(dir, "db.sqlite");
  const server = await startServerProcess(database ? { postgres: database.url } : { db: file });
  const db = await databaseProbe(database?.url);
  const http = httpClient(server.url, clients);
  try {
    const threads = await Promise.all(
      Array.from({ length: clients }, async (_, c) => {
        const { thread_id } = await http.request("POST", "/threads", { metadata: { growth: true } });
        const path = `/threads/${thread_id}/runs/wait`;
        // Rounds to spare, so that the thread is still paused for the inspected answers.
        const state = await http.request("POST", path, {
          assistant_id: "loop",
          input: { rounds: rounds + 2 * INSPECTED },
        });
        return { id: thread_id, path, state, c, given: 0 };
      }),
    );
    const answer = async (thread) => {
      const question = thread.state.__interrupt__?.[0];
      if (question?.value.n !== thread.given) throw new Error(`${thread.path}: expected question ${thread.given}`);
      const text = reviewText(answerBytes, thread.c * 100_000 + thread.given);
      thread.state = await http.request("POST", thread.path, {
        assistant_id: "loop",
        command: { resume: { [question.id]: text } },
      });
      thread.given++;
    };
    const answerAll = (count) =>
      Promise.all(
        threads.map(async (t) => {
          for (let i = 0; i < count; i++) await answer(t);
        }),
      );
    console.log(
      `[growth] ${postgres ? "PostgreSQL (fsync on)" : "SQLite file"}, 1 server process, ${clients} clients, answers of ${answerBytes} bytes appended to the state`,
    );
    for (let done = 0; done < rounds; done += bucket) {
      const before = {
        at: performance.now(),
        cpu: server.cpuMs(),
        written: writtenBytes(server.pid),
        db: db?.cpuMs(),
        lsn: await db?.lsn(),
      };
      await answerAll(bucket);
      const answers = clients * bucket;
      const perAnswer = (value) => value / answers;
      const stateKb = JSON.stringify(threads[0].state).length / 1024;
      const figures = [
        `answers ${done + 1}-${done + bucket} (state ${stateKb.toFixed(0)} kB after)`,
        `${(answers / ((performance.now() - before.at) / 1000)).toFixed(0)}/s`,
        `server CPU ${perAnswer(server.cpuMs() - before.cpu).toFixed(2)} ms`,
      ];
      if (db) {
        figures.push(`PostgreSQL CPU ${perAnswer(db.cpuMs() - before.db).toFixed(2)} ms`);
        figures.push(`WAL ${(perAnswer(await db.walBytes(before.lsn)) / 1024).toFixed(1)} kB per answer`);
      } else {
        figures.push(
          `written ${(perAnswer(writtenBytes(server.pid) - before.written) / 1024).toFixed(1)} kB per answer`,
        );
      }
      console.log(figures.join(", "));
    }
    const readMs = await msEach(200, (i) => http.request("GET", `/threads/${threads[i % clients].id}`));
    console.log(`GET /threads/{id} of a thread with the largest state, one client: ${readMs.toFixed(2)} ms per read`);
    const searchMs = await msEach(30, () =>
      http.request("POST", "/threads/search", { metadata: { growth: true }, limit: 10 }),
    );
    console.log(`POST /threads/search listing 10 of these threads, one client: ${searchMs.toFixed(1)} ms per search`);
    // As a reviewer's list finds an agent's threads by a field of their state.
    const filteredMs = await msEach(30, () =>
      http.request("POST", "/threads/search", {
        metadata: { growth: true },
        values: { rounds: rounds + 2 * INSPECTED },
        limit: 10,
        select: ["thread_id", "status"],
      }),
    );
    console.log(
      `POST /threads/search filtering on a short field of the values, listing 10 thread ids, one client: ${filteredMs.toFixed(1)} ms per search`,
    );
    if (file) {
      const { total, tables } = await fileBytes(file);
      const answers = clients * rounds;
      console.log(
        `The SQLite file (with its WAL): ${(total / answers / 1024).toFixed(1)} kB per answer; largest tables:`,
      );
      for (const table of tables)
        console.log(`  ${(table.bytes / answers / 1024).toFixed(1).padStart(7)} kB per answer  ${table.name}`);
    }
    if (db) {
      const from = await db.lsn();
      await answerAll(INSPECTED);
      const rows = await db.walByTable(from, await db.lsn());
      console.log(`WAL of ${INSPECTED} more answers per thread, by table (kB per answer):`);
      for (const row of rows)
        console.log(`  ${(Number(row.bytes) / (clients * INSPECTED) / 1024).toFixed(1).padStart(7)}  ${row.relation}`);
    }
  } finally {
    http.close();
    await db?.close();
    await server.stop();
    database?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
