/** Several processes on one PostgreSQL database: servers and a worker sharing threads and runs. */

import { PostgresSaver } from "@interlude/checkpoint-postgres";
import pg from "pg";
import { beforeAll, describe, expect, it } from "vitest";
import { clientOf, collect, FIXTURE_CONFIG, followSse, until } from "./helpers.js";
import { type Child, deploymentOnPostgres } from "./processes.js";

const deployment = deploymentOnPostgres("interlude_server");
let urlA: string;
let urlB: string;
const processes: Child[] = [];

beforeAll(async () => {
  // Started one after the other: both run the migrations, the second finds them done.
  const a = await deployment.serve(FIXTURE_CONFIG);
  const b = await deployment.serve(FIXTURE_CONFIG);
  processes.push(a, b, await deployment.worker(FIXTURE_CONFIG));
  urlA = a.url;
  urlB = b.url;
}, 60_000);

describe("two servers on one PostgreSQL database", () => {
  it("a run paused through one server is listed and resumed through the other", async () => {
    const a = clientOf(urlA);
    const b = clientOf(urlB);
    const events = await followSse(`${urlB}/inbox/events`);
    try {
      const thread = await a.threads.create();
      const streamed = await collect(
        a.runs.stream(thread.thread_id, "approval", { input: { request: { service: "pg" } }, streamMode: "updates" }),
      );
      const interrupt = (streamed.find((e) => (e.data as any)?.__interrupt__)!.data as any).__interrupt__[0];
      // B sees the thread, its pending interrupt, and heard about it live.
      expect((await b.threads.get(thread.thread_id)).status).toBe("interrupted");
      const inbox = (await fetch(`${urlB}/inbox/interrupts?thread_id=${thread.thread_id}`).then((r) => r.json())) as {
        items: Array<{ interrupt_id: string }>;
      };
      expect(inbox.items.map((i: any) => i.interrupt_id)).toEqual([interrupt.id]);
      await until(async () =>
        events.events.find((e) => e.event === "interrupt.created" && e.data.interrupt_id === interrupt.id),
      );

      const done = (await b.runs.wait(thread.thread_id, "approval", {
        command: { resume: { [interrupt.id]: { type: "accept" } } },
      })) as any;
      expect(done.result).toBe("deployed pg@1.0.0 x3");
      expect((await a.threads.get(thread.thread_id)).status).toBe("idle");
      await until(async () =>
        events.events.find((e) => e.event === "interrupt.resolved" && e.data.interrupt_id === interrupt.id),
      );
      // Answering again through A: already answered, nothing applied twice.
      await expect(
        a.runs.wait(thread.thread_id, "approval", { command: { resume: { [interrupt.id]: { type: "ignore" } } } }),
      ).rejects.toThrow(/409.*already_answered/);
    } finally {
      events.close();
    }
  });

  it("questions asked and answered through the two servers in turn, checkpoints held back (durability async): each reads the other's", async () => {
    const clients = [clientOf(urlA), clientOf(urlB)];
    const thread = await clients[0]!.threads.create();
    const saver = new PostgresSaver(deployment.database, { cachedThreads: 0 });
    try {
      for (const [round, service] of ["one", "two", "three"].entries()) {
        // Asked through one server (its checkpoint after "propose" held back, then stored before the question) ...
        const asking = clients[round % 2]!;
        const answering = clients[(round + 1) % 2]!;
        const paused = (await asking.runs.wait(thread.thread_id, "approval", {
          input: { request: { service } },
          durability: "async",
        })) as any;
        const interrupt = paused.__interrupt__[0];
        // ... read back as stored by a fresh saver and by the other server ...
        const stored = await saver.getTuple({ configurable: { thread_id: thread.thread_id } });
        expect(stored).toBeDefined();
        expect((stored!.checkpoint.channel_values.plan as any).args.service).toBe(service);
        expect(stored!.pendingWrites?.map(([, channel]) => channel)).toContain("__interrupt__");
        const state = await answering.threads.getState(thread.thread_id);
        expect(state.next).toEqual(["review"]);
        expect(state.tasks[0]?.interrupts.map((i) => i.id)).toEqual([interrupt.id]);
        // ... and answered through the other.
        const done = (await answering.runs.wait(thread.thread_id, "approval", {
          command: { resume: { [interrupt.id]: { type: "accept" } } },
          durability: "async",
        })) as any;
        expect(done.result).toBe(`deployed ${service}@1.0.0 x3`);
        expect((await asking.threads.get(thread.thread_id)).status).toBe("idle");
        expect(await saver.claimHolder(thread.thread_id)).toBeUndefined();
      }
      const history = await clients[0]!.threads.getHistory(thread.thread_id, { limit: 100 });
      expect(history.filter((h) => h.metadata?.source === "input")).toHaveLength(3);
    } finally {
      await saver.close();
    }
  });

  it("background runs execute on any process and can be joined from any server", async () => {
    const a = clientOf(urlA);
    const b = clientOf(urlB);
    const threads = await Promise.all(Array.from({ length: 6 }, () => a.threads.create()));
    const runs = await Promise.all(
      threads.map((t, i) => a.runs.create(t.thread_id, "slow", { input: { tag: `t${i}`, delay: 50 } })),
    );
    const results = await Promise.all(runs.map((r) => b.runs.join(r.thread_id, r.run_id)));
    for (const [i, values] of results.entries()) expect((values as any).log).toEqual([`first:t${i}`, `second:t${i}`]);
    for (const r of runs) expect((await b.runs.get(r.thread_id, r.run_id)).status).toBe("success");
  });

  it("a background run is claimed where it is queued while that server has a free slot, else it goes through the queue", async () => {
    const a = clientOf(urlA);
    const b = clientOf(urlB);
    // More than a server's eight slots at once.
    const threads = await Promise.all(Array.from({ length: 12 }, () => a.threads.create()));
    const runs = await Promise.all(
      threads.map((t, i) => a.runs.create(t.thread_id, "slow", { input: { tag: `s${i}`, delay: 300 } })),
    );
    const db = new pg.Client({ connectionString: deployment.database });
    await db.connect();
    try {
      const { rows } = await db.query<{ run_id: string }>(
        "SELECT data->>'run_id' AS run_id FROM interlude_pgboss.job WHERE name = 'interlude-run' AND data->>'run_id' = ANY($1)",
        [runs.map((r) => r.run_id)],
      );
      const queued = new Set(rows.map((r) => r.run_id));
      const claimed = runs.filter((r) => r.status === "running");
      // Claimed where queued: no job for it; the others were given to the queue.
      expect(claimed.length).toBeGreaterThan(0);
      expect(claimed.length).toBeLessThanOrEqual(8);
      for (const r of runs) expect(queued.has(r.run_id)).toBe(r.status !== "running");
    } finally {
      await db.end();
    }
    const results = await Promise.all(runs.map((r) => b.runs.join(r.thread_id, r.run_id)));
    for (const [i, values] of results.entries()) expect((values as any).log).toEqual([`first:s${i}`, `second:s${i}`]);
  });

  it("a background run's stream is followed live and rejoined through either server, whichever process executes it", async () => {
    const a = clientOf(urlA);
    const b = clientOf(urlB);
    for (const [starter, follower] of [
      [a, b],
      [b, a],
    ] as const) {
      const thread = await starter.threads.create();
      const run = await starter.runs.create(thread.thread_id, "slow", {
        input: { tag: "far", delay: 200 },
        streamMode: ["updates"],
      });
      // Joined while it runs (it may execute on A, B or the worker): every chunk, not only the outcome.
      const all = await collect(follower.runs.joinStream(thread.thread_id, run.run_id));
      expect(all.map((e) => e.event)).toEqual(["metadata", "updates", "updates", "end"]);
      expect(all.map((e: any) => Object.keys(e.data ?? {})[0])).toEqual(["run_id", "first", "second", undefined]);
      const rest = await collect(starter.runs.joinStream(thread.thread_id, run.run_id, { lastEventId: all[1]!.id }));
      expect(rest.map((e) => e.event)).toEqual(["updates", "end"]);
      expect((rest[0]!.data as any).second.log).toEqual(["second:far"]);
    }
  });

  it("a run streamed through one server is followed live through the other, from its first event", async () => {
    const a = clientOf(urlA);
    const b = clientOf(urlB);
    const thread = await a.threads.create();
    // Executed by A (its client is connected there), whose events are stored only once B asks.
    const stream = a.runs.stream(thread.thread_id, "slow", {
      input: { tag: "near", delay: 300 },
      streamMode: ["updates"],
    });
    const first = await stream.next();
    const runId = (first.value as any).data.run_id as string;
    const own = collect(stream);
    const far = await collect(b.runs.joinStream(thread.thread_id, runId));
    expect(far.map((e) => e.event)).toEqual(["metadata", "updates", "updates", "end"]);
    expect(far.map((e: any) => Object.keys(e.data ?? {})[0])).toEqual(["run_id", "first", "second", undefined]);
    expect((await own).map((e) => e.event)).toEqual(["updates", "updates", "end"]);
  });

  it("enqueued runs on one thread run one after the other, across processes", async () => {
    const a = clientOf(urlA);
    const b = clientOf(urlB);
    const thread = await a.threads.create();
    const first = await a.runs.create(thread.thread_id, "slow", { input: { tag: "1", delay: 100 } });
    const second = await b.runs.create(thread.thread_id, "slow", {
      input: { tag: "2", delay: 10 },
      multitaskStrategy: "enqueue",
    });
    await expect(b.runs.create(thread.thread_id, "slow", { input: { tag: "x" } })).rejects.toThrow(/409/);
    const values = (await a.runs.join(thread.thread_id, second.run_id)) as any;
    expect(values.log).toEqual(["first:1", "second:1", "first:2", "second:2"]);
    expect((await b.runs.get(thread.thread_id, first.run_id)).status).toBe("success");
  });

  it("a resume background run answered through B while the thread was paused through A", async () => {
    const a = clientOf(urlA);
    const b = clientOf(urlB);
    const thread = await a.threads.create();
    const paused = (await a.runs.wait(thread.thread_id, "loop", { input: { rounds: 2 } })) as any;
    const run = await b.runs.create(thread.thread_id, "loop", {
      command: { resume: { [paused.__interrupt__[0].id]: "one" } },
    });
    const after = (await a.runs.join(thread.thread_id, run.run_id)) as any;
    expect(after.answers).toEqual(["one"]);
    expect(after.__interrupt__[0].value).toEqual({ question: "next?", n: 1 });
  });

  it("a run queued and executed by one server starts from the thread's checkpoint head, as the saver has it", async () => {
    const a = clientOf(urlA);
    const saver = new PostgresSaver(deployment.database);
    try {
      const thread = await a.threads.create();
      const paused = (await a.runs.wait(thread.thread_id, "loop", { input: { rounds: 2 } })) as any;
      const head = await saver.getHeadId(thread.thread_id);
      expect(head).toBeDefined();
      await a.runs.wait(thread.thread_id, "loop", { command: { resume: { [paused.__interrupt__[0].id]: "one" } } });
      const { rows } = await saver.pool.query<{ kwargs: string }>(
        "SELECT kwargs FROM interlude_server_runs WHERE thread_id = $1 ORDER BY created_at, run_id",
        [thread.thread_id],
      );
      // Read in the queue transaction's one round trip: null before the first checkpoint, then the head.
      expect(rows.map((r) => JSON.parse(r.kwargs).started_at_checkpoint)).toEqual([null, head]);
    } finally {
      await saver.close();
    }
  });

  it("after everything above, no process has printed a warning (node-postgres's deprecations among them)", () => {
    for (const child of processes) expect(child.output()).not.toMatch(/Warning/);
    // What they did print says where they keep everything.
    expect(processes[0]!.output()).toMatch(
      / {2}storage: PostgreSQL at 127\.0\.0\.1:\d+\/interlude_server_\w+, schema public\n/,
    );
    expect(processes[2]!.output()).toMatch(
      /worker ready \(graphs: [^;]+; PostgreSQL at 127\.0\.0\.1:\d+\/\w+, schema public\)/,
    );
  });
});
