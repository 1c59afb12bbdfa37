/**
 * `GraphCallbackHandler`: what a handler passed in `callbacks` is told when a run pauses for a
 * person and when one resumes (LangGraph.js 1.7.3's callbacks.ts; its test suite has no test
 * of it yet, so these restate what 1.7.3 does).
 */
import { Annotation, Command, GraphCallbackHandler, interrupt, MemorySaver, START, StateGraph } from "@interlude/core";
import { GraphCallbackHandler as LangGraphHandler } from "@langchain/langgraph";
import { expect, it } from "vitest";
import { collect, compare, list, type Runtime } from "./harness.js";

/**
 * A handler recording what it is told, with ids named by what they are: the root graph's chain
 * run, a subgraph's, the thread's head or the checkpoint before it (ids differ by runtime).
 */
function observer(lib: Runtime) {
  const told: unknown[] = [];
  const runs = new Map<string, string>();
  class Observer extends lib.GraphCallbackHandler {
    handleChainStart(
      _s: unknown,
      _i: unknown,
      runId: string,
      parentRunId?: string,
      _t?: unknown,
      _m?: unknown,
      _ty?: unknown,
      name?: string,
    ) {
      if (name === "LangGraph") runs.set(runId, parentRunId ? "subgraph run" : "root run");
    }
    handleInterrupt(event: any) {
      told.push({ told: "interrupt", ...event, runId: runs.get(event.runId) });
    }
    handleResume(event: any) {
      told.push({ told: "resume", ...event, runId: runs.get(event.runId) });
    }
  }
  return { handler: new Observer(), told };
}

/** `told` with checkpoint ids named after the thread's checkpoints (head, the one before it). */
async function named(graph: any, threadId: string, told: unknown[]) {
  const config = { configurable: { thread_id: threadId } };
  const state = await graph.getState(config);
  const names = new Map<string, string>([
    [state.config.configurable.checkpoint_id, "head"],
    [state.parentConfig?.configurable.checkpoint_id, "before head"],
  ]);
  return told.splice(0).map((event: any) => ({
    ...event,
    checkpointId: event.checkpointNs.length ? "subgraph's" : (names.get(event.checkpointId) ?? "other"),
    checkpointNs: event.checkpointNs.map((ns: string) => ns.split(":")[0]),
  }));
}

function reviewGraph(lib: Runtime) {
  const { Annotation, StateGraph, START, END, MemorySaver, interrupt } = lib;
  const State = Annotation.Root({ log: list(lib) });
  const sub = new StateGraph(State)
    .addNode("inner", () => ({ log: [interrupt("sub?")] }))
    .addEdge(START, "inner")
    .compile();
  return new StateGraph(State)
    .addNode("ask", () => ({ log: [interrupt("q1")] }))
    .addNode("sub", sub)
    .addNode("after", () => ({ log: ["after"] }))
    .addEdge(START, "ask")
    .addEdge("ask", "sub")
    .addEdge("sub", "after")
    .addEdge("after", END)
    .compile({ checkpointer: new MemorySaver(), interruptBefore: ["after"] });
}

compare("graph callbacks", {
  "each pause and each resume is told, with the run, status, checkpoint and namespace": async (lib) => {
    const { Command } = lib;
    const graph = reviewGraph(lib);
    const { handler, told } = observer(lib);
    const config = { configurable: { thread_id: "t" }, callbacks: [handler] };
    const steps: Record<string, unknown> = {};
    await graph.invoke({ log: [] }, config);
    steps.start = await named(graph, "t", told);
    await graph.invoke(new Command({ resume: "a1" }), config);
    steps.answer = await named(graph, "t", told);
    await graph.invoke(new Command({ resume: "a2" }), config);
    steps.subgraphAnswer = await named(graph, "t", told);
    await graph.invoke(null, config);
    steps.pastBreakpoint = await named(graph, "t", told);
    await collect(await graph.stream({ log: ["again"] }, config));
    steps.newInputStreamed = await named(graph, "t", told);
    return steps;
  },

  "an update or goto without an answer is not a resume": async (lib) => {
    const { Command } = lib;
    const graph = reviewGraph(lib);
    const { handler, told } = observer(lib);
    const config = { configurable: { thread_id: "t" }, callbacks: [handler] };
    await graph.invoke({ log: [] }, config);
    told.splice(0);
    await graph.invoke(new Command({ update: { log: ["edited"] } }), config);
    return { told: await named(graph, "t", told), next: (await graph.getState(config)).next };
  },

  "the handler is told before the run's chain ends, and a handler given by withConfig is told": async (lib) => {
    const graph = reviewGraph(lib);
    const order: string[] = [];
    class Observer extends lib.GraphCallbackHandler {
      handleChainEnd(_o: unknown, _runId: string, parentRunId?: string) {
        if (!parentRunId) order.push("chain end");
      }
      handleInterrupt(event: any) {
        order.push(`interrupt ${event.interrupts.map((i: any) => i.value).join()}`);
      }
    }
    const observed = graph.withConfig({ callbacks: [new Observer()] });
    await observed.invoke({ log: [] }, { configurable: { thread_id: "t" } });
    return order;
  },

  // What is logged is checked in Interlude's own tests: both runtimes run at once here, and console is shared.
  "a handler that throws does not stop the run; with raiseError the run fails after saving the pause": async (lib) => {
    const graph = reviewGraph(lib);
    class Failing extends lib.GraphCallbackHandler {
      handleInterrupt() {
        throw new Error("observer down");
      }
    }
    const { warn, error } = console;
    console.warn = console.error = () => undefined;
    try {
      const quiet = await graph.invoke({ log: [] }, { configurable: { thread_id: "a" }, callbacks: [new Failing()] });
      const strict = new Failing();
      strict.raiseError = true;
      const failure = await graph
        .invoke({ log: [] }, { configurable: { thread_id: "b" }, callbacks: [strict] })
        .catch((e: Error) => e.message);
      const saved = await graph.getState({ configurable: { thread_id: "b" } });
      return {
        quiet: quiet.__interrupt__.map((i: any) => i.value),
        failure,
        savedPause: saved.tasks.flatMap((t: any) => t.interrupts.map((i: any) => i.value)),
      };
    } finally {
      console.warn = warn;
      console.error = error;
    }
  },
});

// LangGraph.js's own handler class, given to an Interlude graph (a user who kept that import).

it("a handler made from LangGraph.js's own class is told of pauses and resumes", async () => {
  const told: string[] = [];
  class Observer extends LangGraphHandler {
    override handleInterrupt(event: { interrupts: readonly { value?: unknown }[] }) {
      told.push(`paused at ${event.interrupts.map((i) => i.value).join()}`);
    }
    override handleResume(event: { checkpointNs: readonly string[] }) {
      told.push(`resumed at [${event.checkpointNs.join()}]`);
    }
  }
  const graph = new StateGraph(Annotation.Root({ answer: Annotation<string>() }))
    .addNode("ask", () => ({ answer: interrupt<string, string>("approve?") }))
    .addEdge(START, "ask")
    .compile({ checkpointer: new MemorySaver() });
  const config = { configurable: { thread_id: "t" }, callbacks: [new Observer()] };
  await graph.invoke({}, config);
  const done = await graph.invoke(new Command({ resume: "yes" }), config);
  expect(done).toEqual({ answer: "yes" });
  expect(told).toEqual(["paused at approve?", "resumed at []"]);
});

it("is recognised by its brand, whatever class made it", () => {
  expect(GraphCallbackHandler.isInstance(new (class extends LangGraphHandler {})())).toBe(true);
  expect(GraphCallbackHandler.isInstance({ name: "plain", handleInterrupt() {} })).toBe(false);
});
