/**
 * The soak's reviewers (soak.mjs): each owns a thread of a soak graph (test/fixtures/graphs.mjs)
 * and answers its questions one after another, `c${client}-${n}`, as API.md ("Storage failures")
 * tells a client to: an answer refused 503, or whose connection was lost (its process killed),
 * or whose run ended lost or failed by storage, is given again, as it was, until it is taken (200)
 * or refused 409 ALREADY_ANSWERED naming it. Clients answer in turns through `runs/wait`, a
 * background run joined through the next server, and `POST /inbox/answer` (client number modulo
 * 3), each request to the next live server. Every reply is checked as it comes: the thread's
 * answers are those acknowledged, in order, and the question asked next is the one after them.
 */

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The answers a soak graph's state holds, in order: its `answers`, or the agent's tool results. */
function answersOf(values) {
  if (values?.messages) return values.messages.filter((m) => m.type === "tool").map((m) => m.content);
  return values?.answers ?? [];
}

/** The "timeout" answers `taken` holds past `acked`, which agrees with it so far: deadlines gave them, taken as acknowledged. */
function adoptTimeouts(acked, taken) {
  if (JSON.stringify(taken.slice(0, acked.length)) !== JSON.stringify(acked)) return;
  while (taken[acked.length] === "timeout") acked.push("timeout");
}
const REQUEST_TIMEOUT_MS = 60_000;

/** What a client may meet under faults and give its answer again for (API.md, "Storage failures"). */
const ALLOWED = new Set([
  "503 STORAGE_FAILED",
  "503 SERVER_STOPPING",
  "0 CONNECTION_LOST",
  "0 GAVE_UP",
  "409 ALREADY_ANSWERED",
  "409 THREAD_RUNNING",
  "run RUN_LOST",
  "run STORAGE_FAILED",
]);

/**
 * `urls()`: the servers serving now. `graph`: the assistant each thread runs, started with
 * `input`; `deadline`: seconds after which a question no one answered is answered "timeout"
 * (API.md, "Interrupt deadlines"), and `think`: up to how many ms a client waits before
 * answering (races with the deadline). `multitask`: the `multitask_strategy` every run is sent
 * with (the server's default, `reject`, when not given). `impatient`: up to how many ms a client
 * waits for one answer in three before it gives up waiting (the run goes on) and gives the
 * answer again at once, as a reviewer clicking twice does: it waits for the first try's run and
 * is refused 409 naming the answer. `run(c)` runs client `c` until `stop()`.
 */
export function answeringClient({ urls, graph, input, deadline, think = 0, multitask, impatient = 0 }) {
  const strategy = multitask === undefined ? {} : { multitask_strategy: multitask };
  let stopping = false;
  let turn = 0;
  const met = new Map();
  const violations = [];
  /** Per client: its thread, the answers acknowledged, what it is doing (and since when). */
  const clients = [];
  const started = Date.now();

  /**
   * Sends one request to the next live server: `{ status, body, where }`, status 0 when the
   * connection was lost or the client gave up waiting after `patience` ms.
   */
  async function call(method, path, body, patience) {
    for (;;) {
      const live = urls();
      if (live.length === 0) {
        await sleep(50);
        continue;
      }
      const url = live[turn++ % live.length];
      const where = `${method} ${path} on ${url}`;
      const gaveUp = patience === undefined ? undefined : AbortSignal.timeout(patience);
      try {
        const response = await fetch(url + path, {
          method,
          headers: body === undefined ? undefined : { "content-type": "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.any([AbortSignal.timeout(REQUEST_TIMEOUT_MS), ...(gaveUp ? [gaveUp] : [])]),
        });
        const text = await response.text();
        let parsed;
        try {
          parsed = text ? JSON.parse(text) : null;
        } catch {
          parsed = { text };
        }
        return { status: response.status, body: parsed, where };
      } catch (error) {
        const code = gaveUp?.aborted ? "GAVE_UP" : error.name === "TimeoutError" ? "TIMEOUT" : "CONNECTION_LOST";
        return { status: 0, body: { code, message: String(error.cause ?? error) }, where };
      }
    }
  }

  /** Counts what was met; anything API.md does not allow under faults is a violation, which ends the client. */
  function meet(key, where) {
    const seen = met.get(key);
    if (seen) seen.count++;
    else met.set(key, { count: 1, first: where });
    if (!ALLOWED.has(key)) {
      violations.push(`${key} at ${where}`);
      throw new Error(`refused ${key} at ${where}`);
    }
  }

  const refusalOf = (response) => `${response.status} ${response.body?.code}`;

  /**
   * The question `state` (a client's) waits for: its thread's pending one once no run holds it,
   * the thread started or continued by a run without input when it waits for none (stopped
   * between steps by a failure). Checks that the question is the one after the answers taken.
   */
  async function question(state) {
    for (;;) {
      state.doing = `reading the thread (at ${seconds()})`;
      const thread = await call("GET", `/threads/${state.threadId}`);
      if (thread.status !== 200) {
        meet(refusalOf(thread), thread.where);
        await sleep(50);
        continue;
      }
      if (thread.body.status === "busy") {
        await sleep(50);
        continue;
      }
      const [pending] = Object.values(thread.body.interrupts ?? {}).flat();
      if (pending) return expectNext(state, pending, thread.body.values, thread.where);
      const started = Object.keys(thread.body.values ?? {}).length > 0;
      state.doing = `a run ${started ? "continuing" : "starting"} the thread (at ${seconds()})`;
      const run = await call("POST", `/threads/${state.threadId}/runs/wait`, {
        assistant_id: graph,
        input: started ? null : input,
        ...strategy,
      });
      if (run.status !== 200) meet(refusalOf(run), run.where);
      else if (run.body?.__error__) meet(`run ${run.body.__error__.code}`, run.where);
      else if (run.body?.__interrupt__) return expectNext(state, run.body.__interrupt__[0], run.body, run.where);
      await sleep(50);
    }
  }

  /**
   * `pending` must ask for the answer after those acknowledged, which `values` holds in order
   * (with deadlines, followed by those their deadlines answered while the client thought).
   */
  function expectNext(state, pending, values, where) {
    const taken = answersOf(values);
    const expected = state.acked;
    if (deadline) adoptTimeouts(expected, taken);
    if (JSON.stringify(taken) !== JSON.stringify(expected) || pending.value?.n !== expected.length) {
      violations.push(
        `${where}: client ${state.c} acknowledged ${expected.length} answers (last ${expected.at(-1)}), ` +
          `the thread holds ${taken.length} (last ${taken.at(-1)}) and asks question ${pending.value?.n}`,
      );
      throw new Error(violations.at(-1));
    }
    return pending;
  }

  /** A run's outcome (wait, join): the next question, `undefined` to give the answer again. */
  function outcome(state, pending, answer, response) {
    if (response.status === 200 && response.body?.__interrupt__) {
      state.acked.push(answer);
      return expectNext(state, response.body.__interrupt__[0], response.body, response.where);
    }
    const error = response.status === 200 ? response.body?.__error__ : response.body;
    meet(response.status === 200 ? `run ${error?.code}` : refusalOf(response), response.where);
    if (error?.code !== "ALREADY_ANSWERED") return undefined;
    const mine = JSON.stringify(error.answer) === JSON.stringify(answer);
    const timedOut = deadline && error.by === "deadline" && error.answer === "timeout";
    if (error.interrupt_id !== pending.id || !(mine || timedOut)) {
      violations.push(`${response.where}: ${answer} refused as answered by another: ${JSON.stringify(error)}`);
    }
    state.acked.push(mine ? answer : "timeout");
    return null;
  }

  /** Gives `answer` to `pending` in the client's way until it is taken; the next question. */
  async function give(state, pending, answer) {
    const resume = { assistant_id: graph, command: { resume: { [pending.id]: answer } }, ...strategy };
    if (think) {
      state.doing = `thinking over ${answer} (at ${seconds()})`;
      await sleep(Math.random() * think);
    }
    for (;;) {
      state.doing = `giving ${answer} by ${state.way} (at ${seconds()})`;
      const patience = impatient && Math.random() < 1 / 3 ? Math.ceil(Math.random() * impatient) : undefined;
      let response;
      if (state.way === "wait") {
        response = await call("POST", `/threads/${state.threadId}/runs/wait`, resume, patience);
      } else {
        const created =
          state.way === "queued"
            ? await call("POST", `/threads/${state.threadId}/runs`, resume)
            : await call("POST", "/inbox/answer", { thread_id: state.threadId, interrupt_id: pending.id, answer });
        response = created;
        if (created.status === 200 || created.status === 202) {
          state.doing = `joining ${created.body.run_id} with ${answer} (at ${seconds()})`;
          const join = `/threads/${state.threadId}/runs/${created.body.run_id}/join`;
          do response = await call("GET", join, undefined, patience);
          while ((response.status === 0 && response.body.code !== "GAVE_UP") || response.status === 503);
        }
      }
      const next = outcome(state, pending, answer, response);
      if (next) return next;
      if (next === null) return question(state);
      await sleep(response.status === 409 ? 50 : 20);
    }
  }

  const seconds = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
  const ways = ["wait", "queued", "inbox"];

  return {
    async run(c) {
      const state = { c, threadId: crypto.randomUUID(), acked: [], way: ways[c % ways.length], doing: "starting" };
      clients[c] = state;
      for (;;) {
        const made = await call("POST", "/threads", { thread_id: state.threadId, if_exists: "do_nothing" });
        if (made.status === 200) break;
        meet(refusalOf(made), made.where);
        await sleep(50);
      }
      let pending = await question(state);
      for (let n = 0; !stopping; n++) pending = await give(state, pending, `c${c}-${n}`);
      state.doing = `stopped (at ${seconds()})`;
    },
    stop: () => {
      stopping = true;
    },
    stopped: () => stopping,
    acknowledged: () => clients.reduce((sum, state) => sum + (state?.acked.length ?? 0), 0),
    /** Of those, the answers deadlines gave. */
    timedOut: () => clients.reduce((sum, state) => sum + (state?.acked.filter((a) => a === "timeout").length ?? 0), 0),
    refusals: () => Object.fromEntries([...met].map(([key, { count }]) => [key, count])),
    /**
     * What each client is doing; for one not stopped, its thread and newest runs as the API
     * shows them, and the lines `stored(threadId)` adds (the database's rows, when it can read them).
     */
    async whereClientsAre(stored = async () => []) {
      const lines = [];
      for (const state of clients) {
        lines.push(`client ${state.c} (${state.threadId}): ${state.doing}; acknowledged ${state.acked.length}`);
        if (state.doing.startsWith("stopped")) continue;
        const thread = (await call("GET", `/threads/${state.threadId}`)).body;
        const { status, values, interrupts, error } = thread ?? {};
        const history = (await call("POST", `/threads/${state.threadId}/history`, { limit: 3 })).body;
        const runs = (await call("GET", `/threads/${state.threadId}/runs?limit=4`)).body;
        const deep = (await call("GET", `/threads/${state.threadId}/state?subgraphs=true`)).body;
        const inner = deep?.tasks?.map?.((t) => ({
          name: t.name,
          interrupts: t.interrupts?.map((i) => i.id),
          state: t.state && {
            next: t.state.next,
            tasks: t.state.tasks?.map((u) => ({ name: u.name, interrupts: u.interrupts?.map((i) => i.id) })),
          },
        }));
        lines.push(
          `  thread: ${JSON.stringify({ status, answers: answersOf(values).slice(-3), interrupts, error })}`,
          `  newest checkpoints: ${JSON.stringify(history?.map?.((s) => ({ next: s.next, answers: answersOf(s.values).slice(-2), tasks: s.tasks?.map((t) => ({ name: t.name, interrupts: t.interrupts?.length, state: !!t.state })), metadata: s.metadata })))}`,
          `  newest runs: ${JSON.stringify(runs?.map?.((r) => ({ run_id: r.run_id, status: r.status, created_at: r.created_at, updated_at: r.updated_at, kwargs: r.kwargs?.command, error: r.error?.code })))}`,
          `  its tasks, with subgraphs: ${JSON.stringify(inner)}`,
          ...(await stored(state.threadId)).map((line) => `  ${line}`),
        );
      }
      return lines.join("\n");
    },
    /**
     * After the clients ended: each thread holds exactly its client's acknowledged answers, in
     * order, and no run is left queued or running. `{ ok, lines }`.
     */
    async verify() {
      for (const state of clients) {
        const thread = await call("GET", `/threads/${state.threadId}`);
        const taken = answersOf(thread.body?.values);
        if (deadline) adoptTimeouts(state.acked, taken);
        if (JSON.stringify(taken) !== JSON.stringify(state.acked)) {
          violations.push(`client ${state.c}: acknowledged ${state.acked.length}, thread holds ${taken.length}`);
        }
      }
      let metrics;
      for (let tries = 0; tries < 100; tries++) {
        metrics = await call("GET", "/metrics?format=json");
        if (metrics.body?.queue?.n_pending === 0 && metrics.body.queue.n_running === 0) break;
        await sleep(100);
      }
      if (metrics.body?.queue?.n_pending !== 0 || metrics.body.queue.n_running !== 0) {
        violations.push(`runs left after the clients ended: ${JSON.stringify(metrics.body?.queue)}`);
      }
      const firsts = [...met]
        .filter(([key]) => !ALLOWED.has(key))
        .map(([key, { first }]) => `${key} first at ${first}`);
      return { ok: violations.length === 0, lines: [...violations.map((v) => `VIOLATION ${v}`), ...firsts] };
    },
  };
}
