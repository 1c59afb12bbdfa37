/**
 * On PostgreSQL the run's claim rides in the queue's transaction and its last writes (the
 * question it paused on, with the claim's release) in the finish's (runs/joined-saver.ts).
 * A failure of the finish leaves the thread consistent and resumable: with the writes sent on
 * their own when only the store's record failed, or at its last checkpoint when the writes
 * themselves could not be stored.
 */
import { Annotation, interrupt, type LangGraphRunnableConfig, START, StateGraph } from "@interlude/core";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { testPostgresUrl } from "../../../test/setup/urls.js";
import { json, type TestServer, testServer, until } from "./helpers.js";
import { freshDatabase } from "./processes.js";

const name = `interlude_one_tx_${process.pid}_${Date.now() % 1e6}`;
let server: TestServer;
let db: pg.Client;
let database: string;

/** Called in `work_then_ask`'s first node (to switch a fault on mid-run). */
let during: (config: LangGraphRunnableConfig) => unknown = () => undefined;
/** Node "work" calls `during`; node "ask" then asks: the run saves a checkpoint between them. */
const workThenAsk = new StateGraph(Annotation.Root({ done: Annotation<boolean>(), answer: Annotation<string>() }))
  .addNode("work", async (_state, config) => (await during(config), { done: true }))
  .addNode("ask", () => ({ answer: interrupt<unknown, string>({ question: "ok?" }) }))
  .addEdge(START, "work")
  .addEdge("work", "ask");

beforeAll(async () => {
  database = await freshDatabase(testPostgresUrl(), name);
  // A short claim: a claim left by a failed finish lapses within the test.
  server = await testServer({ postgresUrl: database, claimTtlMs: 1_000, graphs: { work_then_ask: workThenAsk } });
  db = new pg.Client({ connectionString: database });
  await db.connect();
  // Faults the tests switch on: the finish's record of a successful run, the storing of a question, or
  // of a checkpoint on its own (a held put sent alone; a run's input goes with its next put, two rows), refused.
  await db.query(`CREATE TABLE one_tx_faults (what text PRIMARY KEY);
    CREATE FUNCTION one_tx_fault() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF EXISTS (SELECT FROM one_tx_faults WHERE what = TG_ARGV[0]) THEN RAISE EXCEPTION 'injected fault: %', TG_ARGV[0]; END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER one_tx_finish BEFORE UPDATE ON interlude_server_runs FOR EACH ROW
      WHEN (NEW.status = 'success') EXECUTE FUNCTION one_tx_fault('finish');
    CREATE TRIGGER one_tx_question BEFORE INSERT ON interlude_writes FOR EACH ROW
      WHEN (NEW.channel = '__interrupt__') EXECUTE FUNCTION one_tx_fault('question');
    CREATE FUNCTION one_tx_lone_fault() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF EXISTS (SELECT FROM one_tx_faults WHERE what = 'lone checkpoint') AND (SELECT count(*) FROM inserted) = 1
        THEN RAISE EXCEPTION 'injected fault: lone checkpoint'; END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER one_tx_lone_checkpoint AFTER INSERT ON interlude_checkpoints REFERENCING NEW TABLE AS inserted
      FOR EACH STATEMENT EXECUTE FUNCTION one_tx_lone_fault();
    CREATE FUNCTION one_tx_delete_fault() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF EXISTS (SELECT FROM one_tx_faults WHERE what = 'delete checkpoint') THEN RAISE EXCEPTION 'injected fault: delete checkpoint'; END IF;
      RETURN OLD;
    END $$;
    CREATE TRIGGER one_tx_delete_checkpoint BEFORE DELETE ON interlude_checkpoints FOR EACH ROW
      EXECUTE FUNCTION one_tx_delete_fault();`);
}, 60_000);
afterEach(async () => {
  during = () => undefined;
  await db.query("DELETE FROM one_tx_faults");
});
afterAll(async () => {
  await db?.end();
  await server?.dispose();
});

const post = (path: string, body: unknown) =>
  json(`${server.url}${path}`, { method: "POST", body: JSON.stringify(body) });
const wait = (threadId: string, body: Record<string, unknown>) =>
  post(`/threads/${threadId}/runs/wait`, { assistant_id: "loop", ...body });
const fault = (what: string) => db.query("INSERT INTO one_tx_faults VALUES ($1)", [what]);
/** Claims on the thread not released (a released one keeps its row, marked by its expiry: the saver's sql.ts). */
const claims = async (threadId: string) =>
  (await db.query("SELECT owner FROM interlude_claims WHERE thread_id = $1 AND expires_at > '-infinity'", [threadId]))
    .rowCount;
const statusOfLastRun = async (threadId: string) =>
  until(async () => {
    const runs = (await json(`${server.url}/threads/${threadId}/runs`)).body as Array<{ status: string }>;
    return runs[0]?.status !== "running" && runs[0]?.status;
  });
const questionOf = (body: any): number => body.__interrupt__[0].value.n;

/** A thread of `loop` paused on its first question. */
async function asked(rounds: number): Promise<string> {
  const threadId = (await post("/threads", {})).body.thread_id;
  const first = await wait(threadId, { input: { rounds } });
  expect(questionOf(first.body)).toBe(0);
  return threadId;
}

/** A thread of `loop` whose first question was answered ("first") while `what` failed. */
async function answeredFailing(what: "finish" | "question"): Promise<string> {
  const threadId = await asked(3);
  await fault(what);
  await wait(threadId, { command: { resume: "first" } });
  await db.query("DELETE FROM one_tx_faults");
  // The fault stopped the finish: the run is recorded as failed once storage takes it.
  expect(await statusOfLastRun(threadId)).toBe("error");
  return threadId;
}

async function settled(threadId: string) {
  return until(async () => {
    const thread = await json(`${server.url}/threads/${threadId}`);
    return thread.body.status !== "busy" && thread.body;
  });
}

describe("an answer's claim and last writes in the store's transactions", () => {
  it("answers apply in order, each run's question is stored and its claim released with the finish", async () => {
    const threadId = await asked(4);
    for (const n of [1, 2, 3]) {
      const reply = await wait(threadId, { command: { resume: `answer ${n}` } });
      expect(reply.status).toBe(200);
      expect(questionOf(reply.body)).toBe(n);
      expect(await claims(threadId)).toBe(0);
    }
    const done = await wait(threadId, { command: { resume: "answer 4" } });
    expect(done.body.answers).toEqual(["answer 1", "answer 2", "answer 3", "answer 4"]);
    expect(await claims(threadId)).toBe(0);
  });

  it("a finish that fails after the run's checkpoint: the question is stored on its own and the thread answers again", async () => {
    const threadId = await answeredFailing("finish");
    // Its question was stored on its own and its claim released.
    expect((await settled(threadId)).status).toBe("interrupted");
    expect(await claims(threadId)).toBe(0);
    const state = (await json(`${server.url}/threads/${threadId}/state`)).body;
    expect(state.values.answers).toEqual(["first"]);
    expect(state.interrupts.map((i: any) => i.value.n)).toEqual([1]);
    // Resumable: the next answer goes on from there, and the first is not applied again.
    const next = await wait(threadId, { command: { resume: "second" } });
    expect(next.status).toBe(200);
    expect(questionOf(next.body)).toBe(2);
    expect(next.body.answers).toEqual(["first", "second"]);
  });

  it("a question that cannot be stored: the thread stays at its last checkpoint and asks it again", async () => {
    const threadId = await answeredFailing("question");
    await settled(threadId);
    // Neither the question nor the record of the run's success: the checkpoint has the answer and no question yet.
    const state = (await json(`${server.url}/threads/${threadId}/state`)).body;
    expect(state.values.answers).toEqual(["first"]);
    expect(state.interrupts).toEqual([]);
    expect(state.next).toEqual(["ask"]);
    // Resumable once the run's claim has lapsed: continuing asks the question again.
    const again = await until(async () => {
      const reply = await wait(threadId, { input: null });
      return reply.status === 200 && reply;
    });
    expect(questionOf(again.body)).toBe(1);
    const next = await wait(threadId, { command: { resume: "second" } });
    expect(next.body.answers).toEqual(["first", "second"]);
  });
});

/** A run stopped after "work": released, at the checkpoint saved after it, and continued from there by a new run. */
async function expectStoppedAfterWork(threadId: string) {
  expect(await claims(threadId)).toBe(0);
  const state = (await json(`${server.url}/threads/${threadId}/state`)).body;
  expect(state.values).toEqual({ done: true });
  expect(state.next).toEqual(["ask"]);
  const again = await post(`/threads/${threadId}/runs/wait`, { assistant_id: "work_then_ask", input: null });
  expect(again.body.__interrupt__[0].value).toEqual({ question: "ok?" });
}

/**
 * Holds `work_then_ask`'s node "work" until `proceed()`, or until `released(config)` says so (a
 * drain asked, or the run's signal aborted: the node then throws, as one that honours it does);
 * `inWork` resolves once it is entered.
 */
function holdInWork(released?: (config: LangGraphRunnableConfig) => boolean) {
  let entered!: () => void;
  const inWork = new Promise<void>((resolve) => (entered = resolve));
  let proceed!: () => void;
  const proceeding = new Promise<void>((resolve) => (proceed = resolve));
  during = async (config) => {
    entered();
    if (!released) return proceeding;
    await until(async () => released(config));
    if (config.signal?.aborted) throw new Error("stopped");
  };
  return { inWork, proceed };
}

describe("a run's checkpoint held back (durability async) and its question parked for the finish", () => {
  const ask = (threadId: string, body: Record<string, unknown>) =>
    post(`/threads/${threadId}/runs/wait`, { assistant_id: "work_then_ask", durability: "async", ...body });

  it("asked, read back and answered: the checkpoint between the nodes is stored with the question", async () => {
    const threadId = (await post("/threads", {})).body.thread_id;
    const asked = await ask(threadId, { input: {} });
    expect(asked.body.__interrupt__[0].value).toEqual({ question: "ok?" });
    expect(await claims(threadId)).toBe(0);
    const state = (await json(`${server.url}/threads/${threadId}/state`)).body;
    expect(state.values).toEqual({ done: true });
    expect(state.next).toEqual(["ask"]);
    expect(state.interrupts.map((i: any) => i.value)).toEqual([{ question: "ok?" }]);
    const done = await ask(threadId, { command: { resume: "yes" } });
    expect(done.body).toEqual({ done: true, answer: "yes" });
  });

  it("a held checkpoint that cannot be stored: the run fails, its question is not recorded, and the thread continues from its last checkpoint", async () => {
    const threadId = (await post("/threads", {})).body.thread_id;
    // The checkpoint after "work" is held back; storing it on its own (before the question) fails.
    during = () => fault("lone checkpoint");
    await ask(threadId, { input: {} });
    during = () => undefined;
    await db.query("DELETE FROM one_tx_faults");
    // What the store records is what the checkpoint holds: no question asked from a checkpoint that is not stored.
    const thread = await settled(threadId);
    const state = (await json(`${server.url}/threads/${threadId}/state`)).body;
    expect(state.next).toEqual(["work"]);
    expect(state.interrupts).toEqual([]);
    expect(thread.status).toBe("error");
    expect(thread.interrupts).toEqual({});
    const { rows } = await db.query("SELECT count(*)::int AS n FROM interlude_writes WHERE thread_id = $1", [threadId]);
    expect(rows[0].n).toBe(0);
    // Continued: "work" runs again and the question is asked.
    const again = await ask(threadId, { input: null });
    expect(again.body.__interrupt__[0].value).toEqual({ question: "ok?" });
    const done = await ask(threadId, { command: { resume: "yes" } });
    expect(done.body).toEqual({ done: true, answer: "yes" });
  });

  it("a run that fails: its error, parked with the claim's release, is stored before the state is read, and the thread continues", async () => {
    const threadId = (await post("/threads", {})).body.thread_id;
    during = () => {
      throw new Error("told to fail");
    };
    await ask(threadId, { input: {} });
    during = () => undefined;
    expect((await settled(threadId)).status).toBe("error");
    expect(await claims(threadId)).toBe(0);
    const state = (await json(`${server.url}/threads/${threadId}/state`)).body;
    expect(state.next).toEqual(["work"]);
    expect(state.tasks[0].error).toContain("told to fail");
    const again = await ask(threadId, { input: null });
    expect(again.body.__interrupt__[0].value).toEqual({ question: "ok?" });
  });

  it("a run cancelled mid-node: the checkpoint it held back is stored with its claim's release, and the thread continues from it", async () => {
    const threadId = (await post("/threads", {})).body.thread_id;
    const { inWork, proceed } = holdInWork();
    const run = (
      await post(`/threads/${threadId}/runs`, { assistant_id: "work_then_ask", input: {}, durability: "async" })
    ).body;
    await inWork;
    const cancelled = await fetch(`${server.url}/threads/${threadId}/runs/${run.run_id}/cancel`, { method: "POST" });
    expect(cancelled.ok).toBe(true);
    // "work" ends within the abort's grace: its step is saved, and the run stops before "ask".
    proceed();
    await json(`${server.url}/threads/${threadId}/runs/${run.run_id}/join`);
    expect((await json(`${server.url}/threads/${threadId}/runs/${run.run_id}`)).body.status).toBe("interrupted");
    await expectStoppedAfterWork(threadId);
  });

  it.each([
    ["queued", "runs"],
    ["wait", "runs/wait"],
  ])(
    "a server shut down mid-node drains its %s run: the node's work is saved, and the other server continues the run from there",
    async (_kind, route) => {
      const other = await testServer({ postgresUrl: database, graphs: { work_then_ask: workThenAsk } });
      const threadId = (await post("/threads", {})).body.thread_id;
      let worked = 0;
      let entered!: () => void;
      const inWork = new Promise<void>((resolve) => (entered = resolve));
      // "work" goes on once the shutdown has asked its run to drain (config.control).
      during = async (config) => {
        worked++;
        entered();
        await until(async () => config.control?.drainRequested === true);
      };
      const created = json(`${other.url}/threads/${threadId}/${route}`, {
        method: "POST",
        body: JSON.stringify({ assistant_id: "work_then_ask", input: {}, durability: "async" }),
      });
      await inWork;
      // Shutting down asks the run to drain: "work" ends undisturbed, and the run stops before "ask"
      // with the checkpoint between them stored (held back by durability async until then).
      await other.dispose();
      // A wait run's client, which went with that server, is told where its run goes on.
      const answer = await created;
      const run = route === "runs" ? answer.body : (await json(`${server.url}/threads/${threadId}/runs`)).body[0];
      if (route === "runs/wait")
        expect(answer).toMatchObject({
          status: 503,
          body: { code: "SERVER_STOPPING", run_id: run.run_id, message: expect.stringMatching(/queue/) },
        });
      // Back in the queue, the run is taken by the server still up, which goes on from "ask" (not
      // sending the input again, so "work" does not run twice).
      const joined = (await json(`${server.url}/threads/${threadId}/runs/${run.run_id}/join`)).body;
      expect(joined.__interrupt__[0].value).toEqual({ question: "ok?" });
      expect((await json(`${server.url}/threads/${threadId}/runs/${run.run_id}`)).body.status).toBe("success");
      expect(worked).toBe(1);
      const state = (await json(`${server.url}/threads/${threadId}/state`)).body;
      expect(state.values).toEqual({ done: true });
      expect(state.next).toEqual(["ask"]);
      expect(await claims(threadId)).toBe(0);
    },
  );
});

/** Through the server at `url`: `work_then_ask` asked and answered "yes" on a new thread. */
async function answeredThread(url: string): Promise<string> {
  const call = (path: string, body: unknown) => json(`${url}${path}`, { method: "POST", body: JSON.stringify(body) });
  const threadId = (await call("/threads", {})).body.thread_id;
  await call(`/threads/${threadId}/runs/wait`, { assistant_id: "work_then_ask", input: {} });
  await call(`/threads/${threadId}/runs/wait`, { assistant_id: "work_then_ask", command: { resume: "yes" } });
  return threadId;
}

/** The thread's checkpoint ids, newest first, as the server at `url` lists them. */
async function historyOf(url: string, threadId: string): Promise<string[]> {
  const listed = await json(`${url}/threads/${threadId}/history`, {
    method: "POST",
    body: JSON.stringify({ limit: 50 }),
  });
  return (listed.body as any[]).map((s) => s.checkpoint_id);
}

describe("a run rolled back while the database refuses to delete checkpoints", () => {
  it("puts its thread back as it was once the database takes it", async () => {
    const threadId = await answeredThread(server.url);
    const history = () => historyOf(server.url, threadId);
    const before = await history();
    const { inWork } = holdInWork((config) => config.signal?.aborted === true);
    const doomed = (await post(`/threads/${threadId}/runs`, { assistant_id: "work_then_ask", input: {} })).body;
    await inWork;
    await until(async () => (await history()).length > before.length);
    // The rollback deletes the checkpoints saved after the run started: refused, it is tried
    // again until the database takes it.
    await fault("delete checkpoint");
    const cancelled = fetch(`${server.url}/threads/${threadId}/runs/${doomed.run_id}/cancel?action=rollback&wait=1`, {
      method: "POST",
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    await db.query("DELETE FROM one_tx_faults");
    expect((await cancelled).status).toBe(204);
    expect(await history()).toEqual(before);
    expect((await json(`${server.url}/threads/${threadId}/state`)).body.values).toEqual({ done: true, answer: "yes" });
  });
});

describe("a run queued again after it started (drained at a shutdown), then rolled back", () => {
  it("has the steps it saved undone, not only its record", async () => {
    const own = await freshDatabase(testPostgresUrl(), `${name}_requeued`);
    const graphs = { work_then_ask: workThenAsk };
    const draining = await testServer({ postgresUrl: own, graphs });
    // Executes no run: the run handed back to the queue stays there.
    const idle = await testServer({ postgresUrl: own, graphs, concurrency: 0 });
    let drained = false;
    try {
      const threadId = await answeredThread(draining.url);
      const history = () => historyOf(idle.url, threadId);
      const before = await history();
      const { inWork } = holdInWork((config) => config.control?.drainRequested === true);
      const queued = (
        await json(`${draining.url}/threads/${threadId}/runs`, {
          method: "POST",
          body: JSON.stringify({ assistant_id: "work_then_ask", input: {} }),
        })
      ).body;
      await inWork;
      drained = true;
      await draining.dispose();
      // Drained after "work": that step is saved, and the run is queued again.
      const runUrl = `${idle.url}/threads/${threadId}/runs/${queued.run_id}`;
      expect((await json(runUrl)).body.status).toBe("pending");
      expect((await history()).length).toBeGreaterThan(before.length);
      expect((await fetch(`${runUrl}/cancel?action=rollback&wait=1`, { method: "POST" })).status).toBe(204);
      expect((await json(runUrl)).status).toBe(404);
      expect(await history()).toEqual(before);
      expect((await json(`${idle.url}/threads/${threadId}/state`)).body.values).toEqual({ done: true, answer: "yes" });
    } finally {
      await idle.dispose();
      if (!drained) await draining.dispose();
    }
  });
});
