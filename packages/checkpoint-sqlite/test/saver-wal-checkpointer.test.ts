import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SqliteSaver } from "@interlude/checkpoint-sqlite";
import { Annotation, END, InvalidSaverOptionError, START, StateGraph } from "@interlude/core";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "interlude-wal-saver-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const newFile = () => join(dir, `checkpoints-${files++}.sqlite`);
const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const unclosed = fixture("unclosed-saver.mjs");

/** SQLite's own automatic checkpoint, in pages: 1000 until a checkpointer takes over (then its backstop). */
const autocheckpoint = (db: Database.Database) => Number(db.pragma("wal_autocheckpoint", { simple: true }));
const SQLITE_DEFAULT = 1000;
/** wal-checkpointer.ts's backstop: 4 x its default truncateAfterPages (4096). */
const BACKSTOP = 4 * 4096;

/** A graph that counts up to `steps`, saving a checkpoint at every step. */
function counter(saver: SqliteSaver, steps: number) {
  const State = Annotation.Root({ count: Annotation<number>() });
  return new StateGraph(State)
    .addNode("tick", (s) => ({ count: s.count + 1 }))
    .addEdge(START, "tick")
    .addConditionalEdges("tick", (s) => (s.count < steps ? "tick" : END))
    .compile({ checkpointer: saver });
}

const run = (saver: SqliteSaver, thread: string, steps: number) =>
  counter(saver, steps).invoke({ count: 0 }, { configurable: { thread_id: thread }, recursionLimit: 1000 });

describe("SqliteSaver's WAL checkpointer", () => {
  it("starts for a file the saver opened once it has written a few dozen times, and stops at close", async () => {
    const file = newFile();
    const saver = SqliteSaver.fromConnString(file);
    await run(saver, "short", 10);
    // A short script's few saves never start the worker.
    expect(autocheckpoint(saver.db)).toBe(SQLITE_DEFAULT);
    await run(saver, "long", 100);
    expect(autocheckpoint(saver.db)).toBe(BACKSTOP);
    await saver.close();
    expect(saver.db.open).toBe(false);

    // Everything written is in the file for the next process.
    const next = SqliteSaver.fromConnString(file, { walCheckpointer: false });
    const state = await counter(next, 100).getState({ configurable: { thread_id: "long" } });
    expect(state.values).toEqual({ count: 100 });
    await next.close();
  });

  it("copies the log back from the worker, so the log is emptied while the saver keeps writing", async () => {
    const file = newFile();
    // A tiny truncation threshold: the worker empties the log as soon as it passes 8 pages.
    const saver = SqliteSaver.fromConnString(file, { walCheckpointer: { intervalMs: 5, truncateAfterPages: 8 } });
    await run(saver, "a", 100);
    const emptied = async () => {
      for (let i = 0; i < 400; i++) {
        if (statSync(`${file}-wal`).size === 0) return true;
        await run(saver, `more-${i}`, 3);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return false;
    };
    expect(await emptied()).toBe(true);
    await saver.close();
    expect(existsSync(file)).toBe(true);
  });

  it("leaves a connection passed in alone unless asked, and can be turned off", async () => {
    const db = new Database(newFile());
    db.pragma("journal_mode = WAL");
    const passedIn = new SqliteSaver(db);
    await run(passedIn, "t", 100);
    expect(autocheckpoint(db)).toBe(SQLITE_DEFAULT);
    await passedIn.close();

    const asked = new SqliteSaver(db, { walCheckpointer: true });
    await run(asked, "u", 100);
    expect(autocheckpoint(db)).toBe(BACKSTOP);
    await asked.close();
    // Stopping it gives the connection back its own automatic checkpoint.
    expect(autocheckpoint(db)).toBe(SQLITE_DEFAULT);
    db.close();

    const off = SqliteSaver.fromConnString(newFile(), { walCheckpointer: false });
    await run(off, "t", 100);
    expect(autocheckpoint(off.db)).toBe(SQLITE_DEFAULT);
    await off.close();
  });

  it("lets a script that never closes its saver exit once its work is done, its worker running", async () => {
    const file = newFile();
    // Killed (and the call throws) if the worker keeps the process alive.
    const printed = execFileSync(process.execPath, [unclosed, file], { encoding: "utf8", timeout: 30_000 });
    expect(Number(printed.trim())).toBe(BACKSTOP);
    const next = SqliteSaver.fromConnString(file, { walCheckpointer: false });
    expect((await counter(next, 100).getState({ configurable: { thread_id: "t" } })).values).toEqual({ count: 100 });
    await next.close();
  });

  it("keeps a script alive while its writes wait for the worker to empty the log", async () => {
    const file = newFile();
    // Writes held for the worker's TRUNCATE used to wait on an unreferenced worker: a script with
    // nothing else to do exited in the middle of a run (exit code 13, the run unsettled).
    const printed = execFileSync(process.execPath, [fixture("truncating-script.mjs"), file, "300"], {
      encoding: "utf8",
      timeout: 60_000,
    });
    const [finished, emptied] = printed.trim().split(" ").map(Number);
    expect(finished).toBe(300);
    expect(emptied).toBeGreaterThan(0);
    const next = SqliteSaver.fromConnString(file, { walCheckpointer: false });
    expect((await counter(next, 5).getState({ configurable: { thread_id: "t299" } })).values).toEqual({ count: 5 });
    await next.close();
  });

  it("refuses to be asked for on a database it cannot work on, and is simply off there by default", async () => {
    expect(() => SqliteSaver.fromConnString(":memory:", { walCheckpointer: true })).toThrow(InvalidSaverOptionError);
    expect(() => SqliteSaver.fromConnString(":memory:", { walCheckpointer: { intervalMs: 10 } })).toThrow(
      /walCheckpointer .*in-memory or read-only database, or one not in WAL mode/,
    );
    const memory = SqliteSaver.fromConnString(":memory:");
    await run(memory, "t", 100);
    expect((await counter(memory, 100).getState({ configurable: { thread_id: "t" } })).values).toEqual({ count: 100 });
    await memory.close();
  });
});
