/** Point 3 of issue 12: state declared as LangGraph 1.x documents it (zod, StateSchema, input/output, context). */
import {
  Annotation,
  DeltaChannel,
  getJsonSchemaFromSchema,
  getSchemaDefaultGetter,
  InvalidContextError,
  isStandardSchema,
  MessagesValue,
  ReducedValue,
  registry,
  START,
  StateGraph,
  StateGraphInputError,
  StateInputError,
  StateSchema,
  withLangGraph,
} from "@interlude/core";
import { MessagesZodState } from "@interlude/core/zod";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { z } from "zod";

describe("zod objects as state", () => {
  it("have the object's fields as state keys (not zod internals), defaults and registered reducers", async () => {
    const State = z.object({
      topic: z.string(),
      count: z.number().default(1),
      notes: z
        .array(z.string())
        .default(() => [])
        .register(registry, { reducer: { fn: (a: string[], b: string[]) => a.concat(b) } }),
      tags: withLangGraph(z.array(z.string()), {
        reducer: { fn: (a: string[], b: string[]) => [...a, ...b] },
        default: () => ["t0"],
      }),
    });
    const graph = new StateGraph(State);
    expect(Object.keys(graph.spec)).toEqual(["topic", "count", "notes", "tags"]);
    const compiled = graph
      .addNode("a", (s) => ({ notes: [`a saw ${s.count}`], tags: ["a"] }))
      .addNode("b", () => ({ notes: ["b"], count: 5 }))
      .addEdge(START, "a")
      .addEdge("a", "b")
      .compile();
    expect(await compiled.invoke({ topic: "x", notes: ["in"] })).toEqual({
      topic: "x",
      count: 5,
      notes: ["in", "a saw 1", "b"],
      tags: ["t0", "a"],
    });
  });

  it("MessagesZodState (from @interlude/core/zod) combines messages by id", async () => {
    const graph = new StateGraph(MessagesZodState)
      .addNode("reply", () => ({ messages: [new AIMessage("pong")] }))
      .addEdge(START, "reply")
      .compile();
    const out = await graph.invoke({ messages: [new HumanMessage("ping")] });
    expect(out.messages.map((m) => m.content)).toEqual(["ping", "pong"]);
  });

  it("validates the input, naming the field, before any node runs", async () => {
    let ran = false;
    const graph = new StateGraph(z.object({ age: z.number().int(), name: z.string().optional() }))
      .addNode("n", () => {
        ran = true;
        return {};
      })
      .addEdge(START, "n")
      .compile();
    const failure = await graph.invoke({ age: "ten" }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StateInputError);
    expect((failure as StateInputError).code).toBe("INVALID_STATE_INPUT");
    expect((failure as StateInputError).field).toBe("age");
    expect((failure as Error).message).toMatch(/"age".*expected number/);
    expect(ran).toBe(false);
  });
});

describe("schema helpers LangGraph.js exports", () => {
  it("getSchemaDefaultGetter, isStandardSchema, getJsonSchemaFromSchema", () => {
    expect(getSchemaDefaultGetter(z.array(z.string()).default(() => ["a"]))?.()).toEqual(["a"]);
    expect(getSchemaDefaultGetter(z.string())).toBeUndefined();
    expect(isStandardSchema(z.string())).toBe(true);
    expect(isStandardSchema({ parse: () => 1 })).toBe(false);
    expect(getJsonSchemaFromSchema(z.object({ a: z.string() }))).toMatchObject({ type: "object", required: ["a"] });
  });
});

describe("node updates", () => {
  it("are validated against the zod state, naming the node and the field", async () => {
    const graph = new StateGraph(z.object({ age: z.number() }))
      .addNode("guess", () => ({ age: "old" }))
      .addEdge(START, "guess")
      .compile();
    const failure = await graph.invoke({ age: 1 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StateInputError);
    expect(failure).toMatchObject({ field: "age", node: "guess" });
    expect((failure as Error).message).toMatch(/"age" in the update of node "guess"/);
  });
});

describe("StateSchema", () => {
  it("takes schemas (last value), ReducedValue (reducer, validated input) and MessagesValue", async () => {
    const State = new StateSchema({
      messages: MessagesValue,
      step: z.string().default("start"),
      total: new ReducedValue(z.number().default(0), { inputSchema: z.number().min(1), reducer: (a, b) => a + b }),
    });
    const graph = new StateGraph(State)
      .addNode("a", (s) => ({ step: `${s.step}>a`, total: 2, messages: [new AIMessage("a")] }))
      .addEdge(START, "a")
      .compile();
    const out = await graph.invoke({ total: 3, messages: [new HumanMessage("go")] });
    expect(out.step).toBe("start>a");
    expect(out.total).toBe(5);
    expect(out.messages).toHaveLength(2);
    await expect(graph.invoke({ total: 0 })).rejects.toThrow(StateInputError);
  });
});

describe("input, output and context schemas", () => {
  const build = (init: unknown, second?: unknown) =>
    new StateGraph(init as never, second)
      .addNode("think", (s: { question: string }) => ({ notes: `about ${s.question}` }))
      .addNode("respond", (s: { notes: string }) => ({ answer: `${s.notes}: 42` }))
      .addEdge(START, "think")
      .addEdge("think", "respond")
      .compile();

  it("new StateGraph({ state, input, output }): input keys filtered in, output keys out", async () => {
    const graph = build({
      state: z.object({ question: z.string(), notes: z.string().optional(), answer: z.string().optional() }),
      input: z.object({ question: z.string() }),
      output: z.object({ answer: z.string() }),
    });
    expect(await graph.invoke({ question: "life", notes: "smuggled" })).toEqual({ answer: "about life: 42" });
  });

  it("new StateGraph(state, { input, output }) with Annotations", async () => {
    const State = Annotation.Root({
      question: Annotation<string>(),
      notes: Annotation<string>(),
      answer: Annotation<string>(),
    });
    const graph = build(State, {
      input: Annotation.Root({ question: Annotation<string>() }),
      output: Annotation.Root({ answer: Annotation<string>() }),
    });
    expect(await graph.invoke({ question: "x" })).toEqual({ answer: "about x: 42" });
  });

  it("a context schema: nodes read config.context", async () => {
    const graph = new StateGraph(Annotation.Root({ greeting: Annotation<string>() }), z.object({ user: z.string() }))
      .addNode("greet", (_s, runtime) => ({ greeting: `hello ${runtime.context.user}` }))
      .addEdge(START, "greet")
      .compile();
    expect(graph.builder.contextSchema).toBeDefined();
    expect(await graph.invoke({}, { context: { user: "ada" } })).toEqual({ greeting: "hello ada" });
  });

  it("the context is checked against the context schema before anything runs", async () => {
    let ran = 0;
    const graph = new StateGraph(
      Annotation.Root({ greeting: Annotation<string>() }),
      z.object({ user: z.string(), tone: z.string().default("warm") }),
    )
      .addNode("greet", (_s, runtime) => {
        ran++;
        return { greeting: `${runtime.context.tone} hello ${runtime.context.user}` };
      })
      .addEdge(START, "greet")
      .compile();
    // As in LangGraph.js, nodes see the context as given (its defaults are not filled in).
    expect(await graph.invoke({}, { context: { user: "ada", tone: "dry" } })).toEqual({ greeting: "dry hello ada" });
    const failure = await graph.invoke({}, { context: { user: 5 } }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(InvalidContextError);
    expect((failure as InvalidContextError).code).toBe("INVALID_CONTEXT");
    expect((failure as Error).message).toMatch(/user: .*expected string/);
    await expect(graph.stream({}, {})).rejects.toThrow(InvalidContextError);
    expect(ran).toBe(1);
  });

  it("refuses what is not a state definition, with a typed error", () => {
    class Config {
      x = 1;
    }
    for (const bad of [42, "state", new Config()]) {
      expect(() => new StateGraph(bad as never)).toThrow(StateGraphInputError);
    }
  });
});

describe("DeltaChannel", () => {
  it("refuses a snapshotFrequency that is not a positive integer", () => {
    expect(() => new DeltaChannel((s: string[], w: string[]) => [...s, ...w], { snapshotFrequency: 0 })).toThrow(
      /positive integer/,
    );
  });

  it("a conditional edge sees the node's writes folded into the state", async () => {
    const State = Annotation.Root({ log: new DeltaChannel((s: string[], w: string[][]) => [...s, ...w.flat()]) });
    let seen: string[] = [];
    const graph = new StateGraph(State)
      .addNode("a", () => ({ log: ["a"] }))
      .addNode("b", () => ({}))
      .addEdge(START, "a")
      .addConditionalEdges("a", (s) => {
        seen = s.log;
        return "b";
      })
      .compile();
    expect(await graph.invoke({ log: ["in"] })).toEqual({ log: ["in", "a"] });
    expect(seen).toEqual(["in", "a"]);
  });
});
