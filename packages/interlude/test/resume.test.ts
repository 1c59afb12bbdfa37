/** Interrupts and resume: ids, maps, partial answers, siblings, commands, subgraphs. */

import {
  Annotation,
  Command,
  END,
  interrupt,
  isInterrupted,
  MemorySaver,
  Send,
  START,
  StateGraph,
} from "@interlude/core";
import { describe, expect, it } from "vitest";

const concat = { reducer: (a: string[], b: string[]) => a.concat(b), default: () => [] as string[] };
const thread = (id: string) => ({ configurable: { thread_id: id } });

describe("interrupt ids", () => {
  it("are stable strings: the same in the result, in getState, and across repeated reads", async () => {
    const State = Annotation.Root({ a: Annotation<string>() });
    const graph = new StateGraph(State)
      .addNode("ask", () => ({ a: interrupt("q") }))
      .addEdge(START, "ask")
      .compile({ checkpointer: new MemorySaver() });
    const result = await graph.invoke({}, thread("ids"));
    expect(isInterrupted(result)).toBe(true);
    const id = result.__interrupt__![0]!.id;
    expect(typeof id).toBe("string");
    expect((await graph.getState(thread("ids"))).interrupts[0]!.id).toBe(id);
    expect((await graph.getState(thread("ids"))).interrupts[0]!.id).toBe(id);
  });

  it("differ between threads for the same graph and question", async () => {
    const State = Annotation.Root({ a: Annotation<string>() });
    const graph = new StateGraph(State)
      .addNode("ask", () => ({ a: interrupt("q") }))
      .addEdge(START, "ask")
      .compile({ checkpointer: new MemorySaver() });
    const one = await graph.invoke({}, thread("x1"));
    const two = await graph.invoke({}, thread("x2"));
    expect(one.__interrupt__![0]!.id).not.toBe(two.__interrupt__![0]!.id);
  });
});

describe("answering Send workers by id", () => {
  const State = Annotation.Root({ items: Annotation<string[]>(), done: Annotation<string[]>(concat) });
  const build = (calls: Record<string, number>) =>
    new StateGraph(State)
      .addNode("worker", (arg: any) => {
        calls[arg.item] = (calls[arg.item] ?? 0) + 1;
        if (arg.item.startsWith("ask")) return { done: [`${arg.item}=${interrupt({ item: arg.item })}`] };
        return { done: [arg.item] };
      })
      .addConditionalEdges(START, (s) => s.items.map((item) => new Send("worker", { item })))
      .compile({ checkpointer: new MemorySaver() });

  it("answers all pending interrupts in one call; finished workers are not run again", async () => {
    const calls: Record<string, number> = {};
    const graph = build(calls);
    const config = thread("fanout");
    const paused = await graph.invoke({ items: ["ok1", "ask1", "ok2", "ask2"] }, config);
    expect(paused.__interrupt__!.map((i) => i.value)).toEqual([{ item: "ask1" }, { item: "ask2" }]);
    const map = Object.fromEntries(paused.__interrupt__!.map((i) => [i.id, `yes-${(i.value as any).item}`]));
    const result = await graph.invoke(new Command({ resume: map }), config);
    expect(result.done).toEqual(["ok1", "ask1=yes-ask1", "ok2", "ask2=yes-ask2"]);
    expect(calls).toEqual({ ok1: 1, ok2: 1, ask1: 2, ask2: 2 });
  });

  it("answering only some leaves the others pending with the same ids", async () => {
    const calls: Record<string, number> = {};
    const graph = build(calls);
    const config = thread("partial");
    const paused = await graph.invoke({ items: ["ask1", "ask2"] }, config);
    const [first, second] = paused.__interrupt__!;
    const partial = await graph.invoke(new Command({ resume: { [first!.id]: "a" } }), config);
    expect(partial.__interrupt__!.map((i) => i.id)).toEqual([second!.id]);
    expect((await graph.getState(config)).interrupts.map((i) => i.id)).toEqual([second!.id]);
    const result = await graph.invoke(new Command({ resume: { [second!.id]: "b" } }), config);
    expect(result.done).toEqual(["ask1=a", "ask2=b"]);
    expect(calls).toEqual({ ask1: 2, ask2: 3 });
  });
});

describe("a failing sibling", () => {
  it("keeps the writes of siblings that finished; on retry only the failed task runs", async () => {
    const State = Annotation.Root({ log: Annotation<string[]>(concat) });
    const calls = { good: 0, bad: 0 };
    let fail = true;
    const graph = new StateGraph(State)
      .addNode("good", () => {
        calls.good++;
        return { log: ["good"] };
      })
      .addNode("bad", () => {
        calls.bad++;
        if (fail) throw new Error("boom");
        return { log: ["bad"] };
      })
      .addEdge(START, "good")
      .addEdge(START, "bad")
      .compile({ checkpointer: new MemorySaver() });
    const config = thread("sibling-fail");
    await expect(graph.invoke({}, config)).rejects.toThrow("boom");
    const state = await graph.getState(config);
    expect(state.tasks.find((t) => t.name === "bad")!.error).toEqual({ name: "Error", message: "boom" });
    // As LangGraph: next lists the unfinished task only, and the values show the finished one's writes.
    expect(state.next).toEqual(["bad"]);
    expect(state.values).toEqual({ log: ["good"] });
    expect(state.tasks.find((t) => t.name === "good")!.result).toEqual({ log: ["good"] });
    fail = false;
    expect((await graph.invoke(null, config)).log).toEqual(["bad", "good"]);
    expect(calls).toEqual({ good: 1, bad: 2 });
  });
});

describe("Command", () => {
  it("resume with update applies the update before the node runs again", async () => {
    const State = Annotation.Root({ plan: Annotation<string>(), verdict: Annotation<string>() });
    const graph = new StateGraph(State)
      .addNode("review", (s) => ({ verdict: `${interrupt("ok?", { key: "verdict" })} on ${s.plan}` }))
      .addEdge(START, "review")
      .compile({ checkpointer: new MemorySaver() });
    const config = thread("resume-update");
    await graph.invoke({ plan: "v1" }, config);
    expect(await graph.invoke(new Command({ resume: "approved", update: { plan: "v2" } }), config)).toEqual({
      plan: "v2",
      verdict: "approved on v2",
    });
  });

  it("goto with update returned from a node routes to the named node", async () => {
    const State = Annotation.Root({ log: Annotation<string[]>(concat) });
    const graph = new StateGraph(State)
      .addNode("router", () => new Command({ update: { log: ["router"] }, goto: "b" }), { ends: ["a", "b"] })
      .addNode("a", () => ({ log: ["a"] }))
      .addNode("b", () => ({ log: ["b"] }))
      .addEdge(START, "router")
      .compile();
    expect((await graph.invoke({})).log).toEqual(["router", "b"]);
  });

  it("Command.PARENT from a subgraph node routes in the parent graph", async () => {
    const State = Annotation.Root({ log: Annotation<string[]>(concat) });
    const child = new StateGraph(State)
      .addNode("escalate", () => new Command({ graph: Command.PARENT, goto: "human", update: { log: ["escalated"] } }))
      .addEdge(START, "escalate")
      .compile();
    const parent = new StateGraph(State)
      .addNode("child", child)
      .addNode("human", () => ({ log: ["human"] }))
      .addNode("never", () => ({ log: ["never"] }))
      .addEdge(START, "child")
      .addConditionalEdges("child", () => END)
      .compile();
    const result = await parent.invoke({});
    expect(result.log).toEqual(["escalated", "human"]);
  });
});

describe("subgraph as a node", () => {
  it("surfaces the child's interrupt with its namespace, and resumes only the interrupted child node", async () => {
    const State = Annotation.Root({ log: Annotation<string[]>(concat) });
    const runs = { prep: 0, ask: 0 };
    const child = new StateGraph(State)
      .addNode("prep", () => {
        runs.prep++;
        return { log: ["prep"] };
      })
      .addNode("ask", () => {
        runs.ask++;
        return { log: [`answer=${interrupt("child question")}`] };
      })
      .addEdge(START, "prep")
      .addEdge("prep", "ask")
      .compile();
    const parent = new StateGraph(State)
      .addNode("child", child)
      .addNode("after", () => ({ log: ["after"] }))
      .addEdge(START, "child")
      .addEdge("child", "after")
      .compile({ checkpointer: new MemorySaver() });
    const config = thread("subgraph-node");
    const paused = await parent.invoke({ log: ["start"] }, config);
    expect(paused.__interrupt__![0]!.value).toBe("child question");
    // The result's interrupt is LangGraph's { id, value }; the snapshot's list says where it was asked.
    expect(Object.keys(paused.__interrupt__![0]!)).toEqual(["id", "value"]);

    const snapshot = await parent.getState(config, { subgraphs: true });
    expect(snapshot.interrupts[0]!.ns).toMatch(/^child:[^|]+\|ask:/);
    const childTask = snapshot.tasks[0]!;
    expect(childTask.name).toBe("child");
    const childState = childTask.state as { next: string[]; values: { log: string[] } };
    expect(childState.next).toEqual(["ask"]);
    expect(childState.values.log).toEqual(["start", "prep"]);

    const result = await parent.invoke(new Command({ resume: 42 }), config);
    expect(result.log).toEqual(["start", "start", "prep", "answer=42", "after"]);
    expect(runs).toEqual({ prep: 1, ask: 2 });
  });
});

describe("end", () => {
  it("an edge to END finishes the run", async () => {
    const State = Annotation.Root({ v: Annotation<number>() });
    const graph = new StateGraph(State)
      .addNode("a", () => ({ v: 1 }))
      .addEdge(START, "a")
      .addEdge("a", END)
      .compile();
    expect(await graph.invoke({})).toEqual({ v: 1 });
  });
});

describe("a node that runs a subgraph and then asks its own question", () => {
  it("gets the subgraph's answer to the subgraph, and its own answer to itself", async () => {
    const State = Annotation.Root({ log: Annotation<string[]>(concat) });
    const child = new StateGraph(State)
      .addNode("inner", () => ({ log: [`inner=${interrupt("child?")}`] }))
      .addEdge(START, "inner")
      .compile();
    const parent = new StateGraph(State)
      .addNode("outer", async (s) => {
        const out = await child.invoke(s);
        return { log: [...out.log.slice(s.log.length), `outer=${interrupt("parent?")}`] };
      })
      .addEdge(START, "outer")
      .compile({ checkpointer: new MemorySaver() });
    const config = thread("nested-then-own");
    const first = await parent.invoke({}, config);
    expect(first.__interrupt__![0]!.value).toBe("child?");
    const second = await parent.invoke(new Command({ resume: "c" }), config);
    expect(second.__interrupt__![0]!.value).toBe("parent?");
    expect((await parent.invoke(new Command({ resume: "p" }), config)).log).toEqual(["inner=c", "outer=p"]);
  });
});
