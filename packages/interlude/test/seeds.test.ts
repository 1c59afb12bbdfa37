/**
 * Every example from the seed documents (../shared/seeds), run as written (translated to
 * TypeScript), printing or returning what the seed shows.
 */

import {
  Annotation,
  Command,
  END,
  InterruptMismatchError,
  interrupt,
  MemorySaver,
  START,
  StateGraph,
  task,
} from "@interlude/core";
import { describe, expect, it } from "vitest";

const thread = (id: string) => ({ configurable: { thread_id: id } });

async function collect(stream: AsyncIterable<unknown>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const chunk of stream) out.push(chunk);
  return out;
}

describe("seed: validating human input with several interrupts in one node", () => {
  it("re-asks until the age is valid and prints the seed's lines", async () => {
    const printed: string[] = [];
    const State = Annotation.Root({ age: Annotation<number>() });
    const graph = new StateGraph(State)
      .addNode("get_valid_age", () => {
        let prompt = "请输入你的年龄 (必须是非负整数).";
        let age: number;
        for (;;) {
          const userInput = interrupt<unknown, string>(prompt);
          const parsed = /^-?\d+$/.test(String(userInput).trim()) ? Number(userInput) : NaN;
          if (Number.isInteger(parsed) && parsed >= 0) {
            age = parsed;
            break;
          }
          prompt = `'${userInput}' 无效，请输入非负整数年龄.`;
        }
        return { age };
      })
      .addNode("report_age", (state) => {
        printed.push(`✅ Human is ${state.age} years old.`);
        return state;
      })
      .addEdge(START, "get_valid_age")
      .addEdge("get_valid_age", "report_age")
      .addEdge("report_age", END)
      .compile({ checkpointer: new MemorySaver() });
    const config = thread("age");

    let result = await graph.invoke({}, config);
    expect(result.__interrupt__!.map((i) => i.value)).toEqual(["请输入你的年龄 (必须是非负整数)."]);
    result = await graph.invoke(new Command({ resume: "not a number" }), config);
    expect(result.__interrupt__!.map((i) => i.value)).toEqual(["'not a number' 无效，请输入非负整数年龄."]);
    result = await graph.invoke(new Command({ resume: "-10" }), config);
    expect(result.__interrupt__!.map((i) => i.value)).toEqual(["'-10' 无效，请输入非负整数年龄."]);
    const final = await graph.invoke(new Command({ resume: "25" }), config);
    expect(printed).toEqual(["✅ Human is 25 years old."]);
    expect(final).toEqual({ age: 25 });
  });
});

describe("seed: the interrupted node runs again from its start", () => {
  it("counts two entries and prints the counter after resuming", async () => {
    let counter = 0;
    const printed: string[] = [];
    const State = Annotation.Root({ answer: Annotation<string>() });
    const graph = new StateGraph(State)
      .addNode("node", () => {
        counter += 1;
        printed.push(`> Entered the node: ${counter} # of times`);
        const answer = interrupt<unknown, string>(undefined);
        printed.push(`The value of counter is: ${counter}`);
        return { answer };
      })
      .addEdge(START, "node")
      .compile({ checkpointer: new MemorySaver() });
    await graph.invoke({}, thread("counter"));
    printed.length = 0;
    await graph.invoke(new Command({ resume: "ok" }), thread("counter"));
    expect(printed).toEqual(["> Entered the node: 2 # of times", "The value of counter is: 2"]);
  });
});

describe("seed: a subgraph invoked as a function inside a node", () => {
  it("re-runs the parent node and the interrupted subgraph node, not the finished one", async () => {
    const printed: string[] = [];
    let counterNodeInSubgraph = 0;
    let counterHumanNode = 0;
    let counterParentNode = 0;
    const State = Annotation.Root({ state_counter: Annotation<number>() });

    const subgraph = new StateGraph(State)
      .addNode("some_node", () => {
        counterNodeInSubgraph += 1;
        printed.push(`Entered \`node_in_subgraph\` a total of ${counterNodeInSubgraph} times`);
        return {};
      })
      .addNode("human_node", () => {
        counterHumanNode += 1;
        printed.push(`Entered human_node in sub-graph a total of ${counterHumanNode} times`);
        const answer = interrupt("what is your name?");
        printed.push(`Got an answer of ${answer}`);
        return {};
      })
      .addEdge(START, "some_node")
      .addEdge("some_node", "human_node")
      .compile({ checkpointer: new MemorySaver() });

    const graph = new StateGraph(State)
      .addNode("parent_node", async (state) => {
        counterParentNode += 1;
        printed.push(`Entered \`parent_node\` a total of ${counterParentNode} times`);
        return await subgraph.invoke(state);
      })
      .addEdge(START, "parent_node")
      .compile({ checkpointer: new MemorySaver() });

    const config = thread("subgraph-function");
    const first = await collect(await graph.stream({ state_counter: 1 }, { ...config, streamMode: "updates" }));
    expect(printed).toEqual([
      "Entered `parent_node` a total of 1 times",
      "Entered `node_in_subgraph` a total of 1 times",
      "Entered human_node in sub-graph a total of 1 times",
    ]);
    expect(first).toHaveLength(1);
    const pending = (first[0] as { __interrupt__: Array<{ value: unknown; ns: string }> }).__interrupt__;
    expect(pending.map((i) => i.value)).toEqual(["what is your name?"]);
    // The namespace names both levels, as the seed's `ns=['parent_node:…', 'human_node:…']`:
    // snapshot.interrupts carries it (the streamed interrupt is LangGraph's { id, value }).
    const asked = (await graph.getState(config)).interrupts;
    expect(asked[0]!.ns).toMatch(/^parent_node:[^|]+\|human_node:[^|]+$/);

    printed.length = 0;
    const resumed = await collect(
      await graph.stream(new Command({ resume: "35" }), { ...config, streamMode: "updates" }),
    );
    expect(printed).toEqual([
      "Entered `parent_node` a total of 2 times",
      "Entered human_node in sub-graph a total of 2 times",
      "Got an answer of 35",
    ]);
    expect(resumed).toEqual([{ parent_node: { state_counter: 1 } }]);
    expect([counterParentNode, counterNodeInSubgraph, counterHumanNode]).toEqual([2, 1, 2]);
  });
});

describe("seed: several interrupts in one node, and a state update sent with the answer", () => {
  const State = Annotation.Root({ age: Annotation<string | null>(), name: Annotation<string | null>() });
  function build(printed: string[], resumeMatching?: "positional") {
    return new StateGraph(State)
      .addNode("human_node", (state) => {
        const name = !state.name ? interrupt<unknown, string>("what is your name?") : "N/A";
        const age = !state.age ? interrupt<unknown, string>("what is your age?") : "N/A";
        printed.push(`Name: ${name}. Age: ${age}`);
        return { age, name };
      })
      .addEdge(START, "human_node")
      .compile({ checkpointer: new MemorySaver(), resumeMatching });
  }

  it("with LangGraph's positional matching, reproduces the seed's wrong answer (Age: John)", async () => {
    const printed: string[] = [];
    const graph = build(printed, "positional");
    const config = thread("pitfall-positional");
    const first = await collect(await graph.stream({ age: null, name: null }, { ...config, streamMode: "updates" }));
    expect((first[0] as any).__interrupt__.map((i: any) => i.value)).toEqual(["what is your name?"]);
    const second = await collect(
      await graph.stream(new Command({ resume: "John", update: { name: "foo" } }), {
        ...config,
        streamMode: "updates",
      }),
    );
    expect(printed).toEqual(["Name: N/A. Age: John"]);
    expect(second).toEqual([{ human_node: { age: "John", name: "N/A" } }]);
  });

  it("by default, refuses to give the name's answer to the age question, and the thread stays paused", async () => {
    const printed: string[] = [];
    const graph = build(printed);
    const config = thread("pitfall-checked");
    await graph.invoke({ age: null, name: null }, config);
    const before = await graph.getState(config);
    await expect(graph.invoke(new Command({ resume: "John", update: { name: "foo" } }), config)).rejects.toBeInstanceOf(
      InterruptMismatchError,
    );
    expect(printed).toEqual([]);
    const after = await graph.getState(config);
    expect(after.interrupts).toEqual(before.interrupts);
    expect(after.values).toEqual({ age: null, name: null });
    // Answering one question at a time, as the seed recommends, works.
    const r1 = await graph.invoke(new Command({ resume: "John" }), config);
    expect(r1.__interrupt__!.map((i) => i.value)).toEqual(["what is your age?"]);
    const r2 = await graph.invoke(new Command({ resume: "25" }), config);
    expect(printed).toEqual(["Name: John. Age: 25"]);
    expect(r2).toEqual({ age: "25", name: "John" });
  });

  it("resumes one at a time, printing the seed's output", async () => {
    const printed: string[] = [];
    const graph = build(printed, "positional");
    const config = thread("one-at-a-time");
    const chunks = await collect(await graph.stream({ age: null, name: null }, { ...config, streamMode: "updates" }));
    expect((chunks[0] as any).__interrupt__[0].value).toBe("what is your name?");
    const withName = await collect(
      await graph.stream(new Command({ resume: "John" }), { ...config, streamMode: "updates" }),
    );
    expect((withName[0] as any).__interrupt__[0].value).toBe("what is your age?");
    const withAge = await collect(
      await graph.stream(new Command({ resume: "25" }), { ...config, streamMode: "updates" }),
    );
    expect(printed).toEqual(["Name: John. Age: 25"]);
    expect(withAge).toEqual([{ human_node: { age: "25", name: "John" } }]);
  });
});

describe("seed: answering several pending interrupts in one call", () => {
  it("maps each interrupt id to its answer", async () => {
    const State = Annotation.Root({
      results: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
    });
    const graph = new StateGraph(State)
      .addNode("a", () => ({ results: [`A:${interrupt({ question: "审批 A" })}`] }))
      .addNode("b", () => ({ results: [`B:${interrupt({ question: "审批 B" })}`] }))
      .addEdge(START, "a")
      .addEdge(START, "b")
      .compile({ checkpointer: new MemorySaver() });
    const config = thread("resume-map");
    await graph.invoke({}, config);
    const pending = (await graph.getState(config)).interrupts;
    expect(pending.map((i) => i.value)).toEqual([{ question: "审批 A" }, { question: "审批 B" }]);
    const resumeMap = { [pending[0]!.id]: true, [pending[1]!.id]: false };
    const result = await graph.invoke(new Command({ resume: resumeMap }), config);
    expect(result).toEqual({ results: ["A:true", "B:false"] });
  });
});

describe("seed: the wrong way (interrupt inside try/catch) and the right way", () => {
  const State = Annotation.Root({ plan: Annotation<string>(), approved: Annotation<boolean>() });

  it("the wrong example still pauses: the swallowed interrupt wins over the returned value", async () => {
    const graph = new StateGraph(State)
      .addNode("approval_node", (state) => {
        let approved: boolean;
        try {
          approved = interrupt<unknown, boolean>({ plan: state.plan });
        } catch {
          return { approved: false };
        }
        return { approved };
      })
      .addEdge(START, "approval_node")
      .compile({ checkpointer: new MemorySaver() });
    const config = thread("swallowed");
    const result = await graph.invoke({ plan: "refund 20€" }, config);
    expect(result.__interrupt__!.map((i) => i.value)).toEqual([{ plan: "refund 20€" }]);
    expect(result.approved).toBeUndefined();
    expect((await graph.getState(config)).next).toEqual(["approval_node"]);
    expect(await graph.invoke(new Command({ resume: true }), config)).toEqual({ plan: "refund 20€", approved: true });
  });

  it("the safe example validates after the interrupt", async () => {
    const graph = new StateGraph(State)
      .addNode("safe_approval_node", (state) => {
        const approved = interrupt<unknown, unknown>({ question: "是否确认？", plan: state.plan });
        if (typeof approved !== "boolean") return { approved: false };
        return { approved };
      })
      .addEdge(START, "safe_approval_node")
      .compile({ checkpointer: new MemorySaver() });
    const config = thread("safe");
    const paused = await graph.invoke({ plan: "p" }, config);
    expect(paused.__interrupt__![0]!.value).toEqual({ question: "是否确认？", plan: "p" });
    expect(await graph.invoke(new Command({ resume: "yes" }), config)).toEqual({ plan: "p", approved: false });
  });
});

describe("seed: side effects before interrupt()", () => {
  it("api_call wrapped in task() runs exactly once across pause and resume", async () => {
    let calls = 0;
    const apiCall = task("api_call", async (question: string) => {
      calls += 1;
      return `context for ${question}`;
    });
    const State = Annotation.Root({ question: Annotation<string>(), answer: Annotation<string>() });
    const graph = new StateGraph(State)
      .addNode("human_node", async (state) => {
        const context = await apiCall(state.question);
        const answer = interrupt<unknown, string>({ question: state.question, context });
        return { answer: `${answer} (${context})` };
      })
      .addEdge(START, "human_node")
      .compile({ checkpointer: new MemorySaver() });
    const config = thread("api-once");
    await graph.invoke({ question: "q" }, config);
    expect(calls).toBe(1);
    const result = await graph.invoke(new Command({ resume: "yes" }), config);
    expect(calls).toBe(1);
    expect(result.answer).toBe("yes (context for q)");
  });

  it("the seed's recommended shapes (side effect after interrupt, or in its own node) also call once", async () => {
    let calls = 0;
    const State = Annotation.Root({ answer: Annotation<string>() });
    const graph = new StateGraph(State)
      .addNode("human_node", () => ({ answer: interrupt<unknown, string>("question") }))
      .addNode("api_call_node", () => {
        calls += 1;
        return {};
      })
      .addEdge(START, "human_node")
      .addEdge("human_node", "api_call_node")
      .compile({ checkpointer: new MemorySaver() });
    await graph.invoke({}, thread("api-node"));
    await graph.invoke(new Command({ resume: "a" }), thread("api-node"));
    expect(calls).toBe(1);
  });
});

describe("seed: approval flow (interrupt -> Command(resume=True) -> final node)", () => {
  it("pauses with the payload, then approves and reaches the final node", async () => {
    const State = Annotation.Root({
      plan: Annotation<string>(),
      approved: Annotation<boolean>(),
      done: Annotation<boolean>(),
    });
    const graph = new StateGraph(State)
      .addNode("approval_node", (state) => ({ approved: interrupt<unknown, boolean>({ plan: state.plan }) }))
      .addNode("final_node", () => ({ done: true }))
      .addEdge(START, "approval_node")
      .addEdge("approval_node", "final_node")
      .addEdge("final_node", END)
      .compile({ checkpointer: new MemorySaver() });
    const config = thread("approval");
    const paused = await graph.invoke({ plan: "ship it" }, config);
    expect(paused.__interrupt__).toEqual([
      expect.objectContaining({ value: { plan: "ship it" }, id: expect.stringMatching(/^[0-9a-f]{32}$/) }),
    ]);
    const snapshot = await graph.getState(config);
    expect(snapshot.next).toEqual(["approval_node"]);
    expect(snapshot.interrupts.map((i) => i.id)).toEqual(paused.__interrupt__!.map((i) => i.id));
    expect(await graph.invoke(new Command({ resume: true }), config)).toEqual({
      plan: "ship it",
      approved: true,
      done: true,
    });
  });
});
