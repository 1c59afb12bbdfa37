/**
 * Subgraphs on a durable saver, each step in a "new process" (a new saver on the same file and
 * a new graph object): a subgraph's breakpoint, a subgraph that keeps its state across the
 * parent's runs, and time travel into a subgraph all continue from what the file holds.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteSaver } from "@interlude/checkpoint-sqlite";
import { Annotation, Command, type CompileOptions, interrupt, START, StateGraph } from "@interlude/core";
import { afterAll, describe, expect, it } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "interlude-subgraphs-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

const list = () => Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] });
/** The parent logs its own nodes; the subgraph keeps its own trail and hands back `last`. */
const Parent = Annotation.Root({ log: list(), last: Annotation<string>() });
const Child = Annotation.Root({ trail: list(), last: Annotation<string>() });

/** p1 → child (c1 → ask → c2) → p2; `ran` counts node runs across "processes". */
function build(saver: SqliteSaver, child: CompileOptions, ran: string[]) {
  const step = (name: string, ask?: string) => () => {
    ran.push(name);
    const entry = ask ? `${name}:${interrupt(ask)}` : name;
    return { trail: [entry], last: entry };
  };
  const sub = new StateGraph(Child)
    .addNode("c1", step("c1"))
    .addNode("ask", step("ask", "approve?"))
    .addNode("c2", step("c2"))
    .addEdge(START, "c1")
    .addEdge("c1", "ask")
    .addEdge("ask", "c2")
    .compile(child);
  const own = (name: string) => () => {
    ran.push(name);
    return { log: [name] };
  };
  return new StateGraph(Parent)
    .addNode("p1", own("p1"))
    .addNode("child", sub)
    .addNode("p2", own("p2"))
    .addEdge(START, "p1")
    .addEdge("p1", "child")
    .addEdge("child", "p2")
    .compile({ checkpointer: saver });
}

/** Runs `step` with a fresh saver and graph on the same file, as a new process would. */
async function inNewProcess<T>(
  file: string,
  child: CompileOptions,
  ran: string[],
  step: (graph: ReturnType<typeof build>) => Promise<T>,
) {
  const saver = new SqliteSaver(file);
  try {
    return await step(build(saver, child, ran));
  } finally {
    await saver.close();
  }
}

describe("subgraphs on SQLite, resumed in another process", () => {
  it("a subgraph's breakpoint pauses the parent; invoke(null) elsewhere continues through it", async () => {
    const file = join(dir, `t${files++}.sqlite`);
    const ran: string[] = [];
    const config = { configurable: { thread_id: "t" } };
    const child = { interruptBefore: ["c2"] };
    await inNewProcess(file, child, ran, (g) => g.invoke({}, config));
    // The question in `ask` comes first, then the breakpoint before c2.
    const answered = await inNewProcess(file, child, ran, (g) => g.invoke(new Command({ resume: "yes" }), config));
    // The parent's values do not include the paused subgraph's progress yet.
    expect(answered).toEqual({ log: ["p1"], __interrupt__: [] });
    const state = await inNewProcess(file, child, ran, (g) => g.getState(config, { subgraphs: true }));
    expect(state.next).toEqual(["child"]);
    expect((state.tasks[0]!.state as { next: string[] }).next).toEqual(["c2"]);
    const done = await inNewProcess(file, child, ran, (g) => g.invoke(null, config));
    expect(done).toEqual({ log: ["p1", "p2"], last: "c2" });
    expect(ran).toEqual(["p1", "c1", "ask", "ask", "c2", "p2"]);
  });

  it("checkpointer: true keeps the subgraph's state across the parent's runs", async () => {
    const file = join(dir, `t${files++}.sqlite`);
    const ran: string[] = [];
    const config = { configurable: { thread_id: "t" } };
    const child = { checkpointer: true };
    for (const answer of ["one", "two"]) {
      await inNewProcess(file, child, ran, (g) => g.invoke({}, config));
      await inNewProcess(file, child, ran, (g) => g.invoke(new Command({ resume: answer }), config));
    }
    const sub = await inNewProcess(file, child, ran, (g) =>
      g.getState({ configurable: { thread_id: "t", checkpoint_ns: "child" } }),
    );
    // The second run continued the first run's subgraph state.
    expect(sub.values.trail).toEqual(["c1", "ask:one", "c2", "c1", "ask:two", "c2"]);
    expect(sub.next).toEqual([]);
  });

  it("time travel into a subgraph's checkpoint replays it from there", async () => {
    const file = join(dir, `t${files++}.sqlite`);
    const ran: string[] = [];
    const config = { configurable: { thread_id: "t" } };
    const child = { checkpointer: true };
    await inNewProcess(file, child, ran, (g) => g.invoke({}, config));
    const atQuestion = await inNewProcess(file, child, ran, async (g) => {
      const state = await g.getState(config, { subgraphs: true });
      return (state.tasks[0]!.state as { config: Record<string, unknown> }).config;
    });
    await inNewProcess(file, child, ran, (g) => g.invoke(new Command({ resume: "first" }), config));
    ran.length = 0;
    const replay = await inNewProcess(file, child, ran, (g) => g.invoke(null, atQuestion));
    expect(replay.__interrupt__?.map((i) => i.value)).toEqual(["approve?"]);
    expect(ran).toEqual(["ask"]);
    const done = await inNewProcess(file, child, ran, (g) => g.invoke(new Command({ resume: "second" }), config));
    const sub = await inNewProcess(file, child, ran, (g) =>
      g.getState({ configurable: { thread_id: "t", checkpoint_ns: "child" } }),
    );
    expect(done.last).toBe("c2");
    expect(sub.values.trail).toEqual(["c1", "ask:second", "c2"]);
  });
});
