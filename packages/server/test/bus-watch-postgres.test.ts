/**
 * Per-answer bus events (interrupts, runs done, answers settled, run events) travel on a channel
 * a process listens to only while a client of its own waits on one (Bus.watch,
 * events/notifications.ts): a process nobody waits on is not woken by every answer of the
 * others, and one whose client waits on a run executing elsewhere still hears it end.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BusEvent } from "../dist/events/bus.js";
import { SettleWatch } from "../dist/runs/settle-watch.js";
import { deploymentNames } from "../dist/store/deployment-names.js";
import { openGate } from "./fixtures/gates.mjs";
import { followSse, type TestServer, testServer, until } from "./helpers.js";
import { databaseForFile } from "./processes.js";

let a: TestServer;
let b: TestServer;
const database = databaseForFile("interlude_watch");
const stats = () => database.sql;
/** Deployments in schema `public` keep the names they had before names were per schema. */
const { watchLock: WATCH_LOCK } = deploymentNames("public");

beforeAll(async () => {
  a = await testServer({ postgresUrl: database.url });
  b = await testServer({ postgresUrl: database.url });
});
afterAll(async () => {
  await a?.dispose();
  await b?.dispose();
});

/** Resolves with the first event `server`'s bus delivers that `match` accepts. */
function heard(server: TestServer, match: (event: BusEvent) => boolean): Promise<BusEvent> {
  return new Promise((resolve) => {
    const stop = server.backend.ctx.bus.subscribe((event) => match(event) && (stop(), resolve(event)));
  });
}

/** Whether `server` watches: its LISTEN connection holds the watch lock (events/notifications.ts). */
async function watching(server: TestServer): Promise<boolean> {
  return (await watchingPid(server)) !== undefined;
}

/** The backend pid of `server`'s LISTEN connection while it holds the watch lock. */
async function watchingPid(server: TestServer): Promise<number | undefined> {
  const { rows } = await stats().query<{ pid: number }>(
    `SELECT a.pid FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE a.application_name = $1 AND l.locktype = 'advisory' AND l.mode = 'ShareLock' AND l.granted`,
    [`interlude ${server.backend.ctx.processId}`],
  );
  return rows[0]?.pid;
}

/** The backend pid of `server`'s LISTEN connection once its WATCH waits for the watch lock. */
async function blockedWatch(server: TestServer): Promise<number | undefined> {
  const { rows } = await stats().query<{ pid: number }>(
    `SELECT a.pid FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE a.application_name = $1 AND l.locktype = 'advisory' AND NOT l.granted`,
    [`interlude ${server.backend.ctx.processId}`],
  );
  return rows[0]?.pid;
}

/**
 * Whether `server` hears the `interrupt.created` of a question asked through `asker` on a new
 * thread. Heard at once when it works; the bound is generous so that a loaded machine (the
 * suite's other files run alongside) is not taken for a deaf process.
 */
async function hearsQuestionsOf(server: TestServer, asker: TestServer): Promise<boolean> {
  const thread = await asker.client().threads.create();
  const question = heard(server, (e) => e.type === "interrupt.created" && e.thread_id === thread.thread_id);
  await asker.client().runs.wait(thread.thread_id, "loop", { input: { rounds: 1 } });
  let timer: NodeJS.Timeout | undefined;
  const deaf = new Promise<boolean>((r) => (timer = setTimeout(() => r(false), 15_000)));
  try {
    return await Promise.race([question.then(() => true), deaf]);
  } finally {
    clearTimeout(timer);
  }
}

/** A background run of the `slow` graph created through `server`, executing there (it has free slots). */
async function slowRun(server: TestServer, input: Record<string, unknown>) {
  const thread = await server.client().threads.create();
  const run = await server.client().runs.create(thread.thread_id, "slow", { input });
  await until(async () => server.backend.ctx.executing.has(run.run_id));
  return { threadId: thread.thread_id, runId: run.run_id };
}

describe("watched bus events across processes", () => {
  it("with no process watching, answers notify nobody; once one watches, it hears them", async () => {
    await until(async () => !(await watching(a)) && !(await watching(b)));
    const events: BusEvent[] = [];
    const stop = b.backend.ctx.bus.subscribe((event) => events.push(event));
    // Listens without watching (no lock): it hears what is sent, not what is left out.
    const listener = new pg.Client({ connectionString: database.url });
    const sent: BusEvent[] = [];
    listener.on("notification", (message) => sent.push(...JSON.parse(message.payload!)));
    await listener.connect();
    await listener.query("LISTEN interlude_server_watched");
    try {
      const unheard = await a.client().threads.create();
      await a.client().runs.wait(unheard.thread_id, "loop", { input: { rounds: 1 } });
      const unwatch = await b.backend.ctx.bus.watch();
      try {
        const watched = await a.client().threads.create();
        await a.client().runs.wait(watched.thread_id, "loop", { input: { rounds: 1 } });
        // Notifications arrive in commit order: hearing the second thread's means the first's were not sent here.
        await until(async () =>
          events.some((e) => e.type === "interrupt.created" && e.thread_id === watched.thread_id),
        );
        expect(events.some((e) => e.type === "run.done")).toBe(true);
        expect(events.filter((e) => "thread_id" in e && e.thread_id === unheard.thread_id)).toEqual([]);
        await until(async () => sent.some((e) => e.type === "interrupt.created" && e.thread_id === watched.thread_id));
        expect(sent.filter((e) => "thread_id" in e && e.thread_id === unheard.thread_id)).toEqual([]);
      } finally {
        unwatch();
      }
    } finally {
      stop();
      await listener.end();
    }
  });

  it("a client of server B waiting on a run executing in server A is woken by its run.done", async () => {
    // Nobody watches yet (an earlier test's watch has lapsed): B watches because its client waits.
    await until(async () => !(await watching(b)));
    const { threadId, runId } = await slowRun(a, { tag: "w", hold: "watch-join", delay: 1 });
    const done = heard(b, (e) => e.type === "run.done" && e.run_id === runId);
    const joined = b.client().runs.join(threadId, runId);
    // B's wait listens before it reads the run, so the run may end now.
    await until(() => watching(b));
    openGate("watch-join");
    expect(await done).toEqual({ type: "run.done", run_id: runId });
    expect(((await joined) as { log: string[] }).log).toEqual(["first:w", "second:w"]);
  });

  it("a run executing in A is cancelled through B, whose client waits for it to stop", async () => {
    const { threadId, runId } = await slowRun(a, { tag: "c", delay: 60_000, abortable: true });
    // run.cancel reaches A, which watches nothing; B's wait returns once the run has stopped.
    await b.client().runs.cancel(threadId, runId, true);
    expect((await a.client().runs.get(threadId, runId)).status).toBe("interrupted");
    expect(a.backend.ctx.executing.has(runId)).toBe(false);
  });

  it("B's inbox stream hears the questions asked and answered through A", async () => {
    const events = await followSse(`${b.url}/inbox/events`);
    try {
      const thread = await a.client().threads.create();
      const paused = (await a.client().runs.wait(thread.thread_id, "loop", { input: { rounds: 2 } })) as any;
      const question = paused.__interrupt__[0].id;
      await a.client().runs.wait(thread.thread_id, "loop", { command: { resume: { [question]: "yes" } } });
      await until(async () =>
        events.events.find((e) => e.event === "interrupt.resolved" && e.data.interrupt_id === question),
      );
      const mine = events.events.filter((e) => e.data?.thread_id === thread.thread_id);
      expect(mine.map((e) => e.event)).toEqual(["interrupt.created", "interrupt.resolved", "interrupt.created"]);
      expect(mine[1]!.data).toMatchObject({ answer: "yes", by: "anonymous" });
    } finally {
      events.close();
    }
  });

  it("a WATCH that does not answer lets the waiter go on; one that fails is sent again by the next watch", async () => {
    await until(async () => !(await watching(b)));
    // Held exclusively, the watch lock keeps B's WATCH waiting, as a half-open connection would.
    await stats().query("SELECT pg_advisory_lock($1)", [WATCH_LOCK]);
    let locked = true;
    const unlock = async () => {
      if (locked) await stats().query("SELECT pg_advisory_unlock($1)", [WATCH_LOCK]);
      locked = false;
    };
    try {
      const started = Date.now();
      const unwatch = await b.backend.ctx.bus.watch();
      expect(Date.now() - started).toBeLessThan(5_000);
      const pid = await until(() => blockedWatch(b));
      // The WATCH fails while the connection stays up.
      await stats().query("SELECT pg_cancel_backend($1)", [pid]);
      await until(async () => (await blockedWatch(b)) === undefined);
      await unlock();
      unwatch();
    } finally {
      await unlock();
    }
    expect(await watching(b)).toBe(false);
    const again = await b.backend.ctx.bus.watch();
    try {
      expect(await watching(b)).toBe(true);
      expect(await hearsQuestionsOf(b, a)).toBe(true);
    } finally {
      again();
    }
  });

  it("a process whose LISTEN connection is cut while watched watches again once reconnected", async () => {
    const unwatch = await b.backend.ctx.bus.watch();
    try {
      const cut = await watchingPid(b);
      expect(cut).toBeDefined();
      await stats().query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", [
        `interlude ${b.backend.ctx.processId}`,
      ]);
      // The cut backend ends a moment after pg_terminate_backend returns: wait for the new one.
      await until(async () => {
        const pid = await watchingPid(b);
        return pid !== undefined && pid !== cut;
      });
      expect(await hearsQuestionsOf(b, a)).toBe(true);
    } finally {
      unwatch();
    }
  });

  it("a run settled in B after A's settle watch opened ends A's wait at once, even before A waits", async () => {
    const runId = `settle-${Date.now()}`;
    const asked = heard(b, (event) => event.type === "answers.settle" && event.run_id === runId);
    const watch = await SettleWatch.open(a.backend.ctx.bus, runId);
    try {
      // A asks the run's process to settle as it opens the watch; B hears the ask.
      await asked;
      const arrived = heard(a, (event) => event.type === "answers.settled" && event.run_id === runId);
      await b.backend.ctx.bus.publish({ type: "answers.settled", run_id: runId });
      await arrived;
      // Heard before the wait began (A was looking at the state): remembered, not missed.
      const started = performance.now();
      await watch.settled(runId, 5_000);
      expect(performance.now() - started).toBeLessThan(500);
    } finally {
      watch.close();
    }
  });
});
