/**
 * Type-level compatibility: the same graph code, typed against LangGraph.js 1.7.3 (`LG`) and
 * against Interlude (`IL`), must infer the same types (the node's state, what `invoke` takes and
 * resolves to, stream chunks, Command / interrupt / task / entrypoint / createReactAgent types).
 * Behaviours come from LangGraph.js's own type tests (libs/langgraph-core/src/tests/*.test-d.ts);
 * the graphs are our own. Every check is written twice, once per runtime, each with that runtime's
 * exports. Nothing here runs a graph: graphs are built, and `invoke` / `stream` only appear inside
 * functions that are never called, for their types.
 *
 * Interlude checks that do not compile yet are kept, disabled, in comments starting with
 * `INTERLUDE-FAILS:` (why, and what LangGraph.js infers there). Re-enable them one by one as the
 * types are fixed; `npx tsc -p tsconfig.tests.json --noEmit` must stay clean.
 */
import * as IL from "@interlude/core";
import * as ILP from "@interlude/core/prebuilt";
import * as ILZ from "@interlude/core/zod";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { type RunnableConfig, RunnableLambda } from "@langchain/core/runnables";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import * as LG from "@langchain/langgraph";
import * as LGP from "@langchain/langgraph/prebuilt";
import * as LGZ from "@langchain/langgraph/zod";
import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";

/** What a never-called `() => graph.invoke(...)` resolves to. */
type Resolved<F extends () => Promise<unknown>> = Awaited<ReturnType<F>>;
/** Interlude's invoke result without the `__interrupt__` it declares (COMPATIBILITY.md: LangGraph.js declares none). */
type Plain<T> = Omit<T, "__interrupt__">;
/** The chunks of a never-called `() => graph.stream(...)`. */
type ChunkOf<F extends () => Promise<AsyncIterable<unknown>>> =
  Awaited<ReturnType<F>> extends AsyncIterable<infer T> ? T : never;

const model = () => new FakeListChatModel({ responses: ["done"] });

describe("Annotation.Root state", () => {
  const lgState = LG.Annotation.Root({
    count: LG.Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }),
    title: LG.Annotation<string>(),
  });
  const ilState = IL.Annotation.Root({
    count: IL.Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }),
    title: IL.Annotation<string>(),
  });

  it("State and Update helpers", () => {
    expectTypeOf<typeof lgState.State>().toEqualTypeOf<{ count: number; title: string }>();
    expectTypeOf<typeof lgState.Update>().toEqualTypeOf<{
      count?: number | LG.OverwriteValue<number> | undefined;
      title?: string | undefined;
    }>();

    expectTypeOf<typeof ilState.State>().toEqualTypeOf<{ count: number; title: string }>();
    expectTypeOf<typeof ilState.Update>().toEqualTypeOf<{
      count?: number | IL.OverwriteValue<number> | undefined;
      title?: string | undefined;
    }>();
  });

  it("`Annotation<T>` uncalled declares a last-value channel", () => {
    const lg = LG.Annotation.Root({ title: LG.Annotation<string>, done: LG.Annotation<boolean> });
    expectTypeOf<typeof lg.State>().toEqualTypeOf<{ title: string; done: boolean }>();

    const il = IL.Annotation.Root({ title: IL.Annotation<string>, done: IL.Annotation<boolean> });
    expectTypeOf<typeof il.State>().toEqualTypeOf<{ title: string; done: boolean }>();
  });

  it("nodes receive the state; invoke takes updates and resolves to the state", () => {
    const lg = new LG.StateGraph(lgState)
      .addNode("bump", (state) => {
        expectTypeOf(state).toEqualTypeOf<{ count: number; title: string }>();
        return { count: state.count + 1 };
      })
      .addEdge(LG.START, "bump")
      .compile();
    const lgRun = () => lg.invoke({ title: "t" });
    expectTypeOf<Resolved<typeof lgRun>>().toEqualTypeOf<{ count: number; title: string }>();
    expectTypeOf<Resolved<typeof lgRun>["count"]>().toEqualTypeOf<number>();
    // @ts-expect-error a value of the wrong type
    const _lgBad = () => lg.invoke({ count: "one" });
    // @ts-expect-error a key the state does not have
    const _lgUnknown = () => lg.invoke({ nope: 1 });

    const il = new IL.StateGraph(ilState)
      .addNode("bump", (state) => {
        expectTypeOf(state).toEqualTypeOf<{ count: number; title: string }>();
        return { count: state.count + 1 };
      })
      .addEdge(IL.START, "bump")
      .compile();
    const ilRun = () => il.invoke({ title: "t" });
    expectTypeOf<Resolved<typeof ilRun>["count"]>().toEqualTypeOf<number>();
    /* INTERLUDE-FAILS: invoke resolves to the state & { __interrupt__?: Interrupt[] }
       (LG: exactly { count: number; title: string })
    expectTypeOf<Resolved<typeof ilRun>>().toEqualTypeOf<{ count: number; title: string }>();
    */
    // @ts-expect-error a value of the wrong type
    const _ilBad = () => il.invoke({ count: "one" });
    // @ts-expect-error a key the state does not have
    const _ilUnknown = () => il.invoke({ nope: 1 });
  });

  it("a node's update is checked against the state", () => {
    // @ts-expect-error count is a number
    const _lgValue = () => new LG.StateGraph(lgState).addNode("bad", () => ({ count: "one" }));
    // @ts-expect-error the state has no `nope`
    const _lgKey = () => new LG.StateGraph(lgState).addNode("bad", (state) => ({ count: state.nope }));

    // @ts-expect-error the state has no `nope`
    const _ilKey = () => new IL.StateGraph(ilState).addNode("bad", (state) => ({ count: state.nope }));
    // @ts-expect-error count is a number
    const _ilValue = () => new IL.StateGraph(ilState).addNode("bad", () => ({ count: "one" }));
  });

  it("nodes typed by hand: `typeof State.Node`, `(state: typeof State.State, config: LangGraphRunnableConfig)`", () => {
    const lgHelper: typeof lgState.Node = (state) => ({ count: state.count + 1 });
    expectTypeOf(lgHelper).parameter(0).toEqualTypeOf<{ count: number; title: string }>();
    const lgTyped = async (state: typeof lgState.State, config: LG.LangGraphRunnableConfig) => {
      expectTypeOf(config.configurable?.step).toBeAny();
      return { title: `${state.title}!` };
    };
    new LG.StateGraph(lgState).addNode("helper", lgHelper).addNode("typed", lgTyped).addEdge(LG.START, "helper");

    const ilHelper: typeof ilState.Node = (state) => ({ count: state.count + 1 });
    expectTypeOf(ilHelper).parameter(0).toEqualTypeOf<{ count: number; title: string }>();
    const ilTyped = async (state: typeof ilState.State, _config: IL.LangGraphRunnableConfig) => {
      expectTypeOf(_config.configurable?.step).toBeAny();
      return { title: `${state.title}!` };
    };
    new IL.StateGraph(ilState).addNode("helper", ilHelper).addNode("typed", ilTyped).addEdge(IL.START, "helper");
  });

  it("a node's second argument: store, writer, signal", () => {
    new LG.StateGraph(lgState).addNode("n", (_state, config) => {
      expectTypeOf(config.store).toEqualTypeOf<LG.BaseStore | undefined>();
      expectTypeOf(config.writer).toEqualTypeOf<(chunk: unknown) => void>();
      expectTypeOf(config.signal).toEqualTypeOf<AbortSignal>();
      return {};
    });

    new IL.StateGraph(ilState).addNode("n", (_state, config) => {
      expectTypeOf(config.store).toEqualTypeOf<IL.BaseStore | undefined>();
      expectTypeOf(config.writer).toEqualTypeOf<(chunk: unknown) => void>();
      expectTypeOf(config.signal).toEqualTypeOf<AbortSignal>();
      return {};
    });
  });
});

describe("node names", () => {
  const lgState = LG.Annotation.Root({ step: LG.Annotation<number>() });
  const ilState = IL.Annotation.Root({ step: IL.Annotation<number>() });

  it("addNode accumulates names; edges to or from unknown nodes are refused", () => {
    const lg = new LG.StateGraph(lgState)
      .addNode("plan", () => ({ step: 1 }))
      .addNode("act", () => ({ step: 2 }))
      .addNode("report", () => ({}))
      .addEdge(LG.START, "plan")
      .addEdge("plan", "act")
      .addEdge(["plan", "act"], "report")
      .addEdge("report", LG.END);
    lg.compile({ interruptBefore: ["act"], interruptAfter: ["plan"] });
    // Never called: each would also fail at run time.
    // @ts-expect-error unknown target
    const _lgTarget = () => lg.addEdge("plan", "review");
    // @ts-expect-error unknown source
    const _lgSource = () => lg.addEdge("review", "act");
    // @ts-expect-error unknown source of a branch
    const _lgBranch = () => lg.addConditionalEdges("review", () => LG.END);
    // @ts-expect-error interrupting before an unknown node
    const _lgInterrupt = () => lg.compile({ interruptBefore: ["review"] });

    const il = new IL.StateGraph(ilState)
      .addNode("plan", () => ({ step: 1 }))
      .addNode("act", () => ({ step: 2 }))
      .addNode("report", () => ({}))
      .addEdge(IL.START, "plan")
      .addEdge("plan", "act")
      .addEdge(["plan", "act"], "report")
      .addEdge("report", IL.END);
    il.compile({ interruptBefore: ["act"], interruptAfter: ["plan"] });
    // @ts-expect-error unknown target
    const _ilTarget = () => il.addEdge("plan", "review");
    // @ts-expect-error unknown source
    const _ilSource = () => il.addEdge("review", "act");
    // @ts-expect-error unknown source of a branch
    const _ilBranch = () => il.addConditionalEdges("review", () => IL.END);
    /* INTERLUDE-FAILS: compile's interruptBefore / interruptAfter are string[], not the node names
       (LG: ("__start__" | "plan" | "act" | "report")[] | "*"). Interlude's own tests compile unknown
       names to check the run-time refusal (packages/interlude/test/validation.test.ts) and pass
       string[] lists (state.test.ts, final-state.test.ts, safe-resume.test.ts, checkpoint-sqlite's
       subgraphs.test.ts): typing them needs those tests changed first.
    // @ts-expect-error interrupting before an unknown node
    const _ilInterrupt = () => il.compile({ interruptBefore: ["review"] });
    */
  });

  it("conditional edges: the router gets the state, may return names, END or Sends", () => {
    const lgRouter = (state: typeof lgState.State) => (state.step > 1 ? "act" : LG.END);
    new LG.StateGraph(lgState)
      .addNode("plan", () => ({}))
      .addNode("act", () => ({}))
      .addConditionalEdges("plan", lgRouter, ["act", LG.END])
      .addConditionalEdges("act", (state) => {
        expectTypeOf(state).toEqualTypeOf<{ step: number }>();
        return "plan";
      })
      .addConditionalEdges(LG.START, () => [new LG.Send("act", { step: 1 })]);

    const ilRouter = (state: typeof ilState.State) => (state.step > 1 ? "act" : IL.END);
    new IL.StateGraph(ilState)
      .addNode("plan", () => ({}))
      .addNode("act", () => ({}))
      .addConditionalEdges("plan", ilRouter, ["act", IL.END])
      .addConditionalEdges("act", (state) => {
        expectTypeOf(state).toEqualTypeOf<{ step: number }>();
        return "plan";
      })
      .addConditionalEdges(IL.START, () => [new IL.Send("act", { step: 1 })]);
  });

  it("a node returning a Command (with `ends`), a compiled subgraph as a node", () => {
    const lgSub = new LG.StateGraph(lgState)
      .addNode("inner", () => ({}))
      .addEdge(LG.START, "inner")
      .compile();
    new LG.StateGraph(lgState)
      .addNode("route", () => new LG.Command({ goto: "sub", update: { step: 1 } }), { ends: ["sub"] })
      .addNode("sub", lgSub)
      .addEdge(LG.START, "route")
      .compile();

    const ilSub = new IL.StateGraph(ilState)
      .addNode("inner", () => ({}))
      .addEdge(IL.START, "inner")
      .compile();
    new IL.StateGraph(ilState)
      .addNode("route", () => new IL.Command({ goto: "sub", update: { step: 1 } }), { ends: ["sub"] })
      .addNode("sub", ilSub)
      .addEdge(IL.START, "route")
      .compile();
  });

  it("GraphNode<typeof State> types a node apart from the graph", () => {
    const lgNode: LG.GraphNode<typeof lgState> = (state) => ({ step: state.step + 1 });
    expectTypeOf(lgNode).parameter(0).toEqualTypeOf<{ step: number }>();

    const ilNode: IL.GraphNode<typeof ilState> = (state) => ({ step: state.step + 1 });
    expectTypeOf(ilNode).parameter(0).toEqualTypeOf<{ step: number }>();
  });
});

describe("MessagesAnnotation", () => {
  it("State and Update", () => {
    expectTypeOf<typeof LG.MessagesAnnotation.State>().toEqualTypeOf<{ messages: BaseMessage[] }>();
    expectTypeOf<typeof LG.MessagesAnnotation.Update>().toEqualTypeOf<{
      messages?: LG.OverwriteValue<BaseMessage[]> | LG.Messages | undefined;
    }>();

    expectTypeOf<typeof IL.MessagesAnnotation.State>().toEqualTypeOf<{ messages: BaseMessage[] }>();
    expectTypeOf<typeof IL.MessagesAnnotation.Update>().toEqualTypeOf<{
      messages?: IL.OverwriteValue<BaseMessage[]> | IL.Messages | undefined;
    }>();
  });

  it("a chat graph: node state, message-like updates, invoke input and result", () => {
    const lg = new LG.StateGraph(LG.MessagesAnnotation)
      .addNode("chat", (state) => {
        expectTypeOf(state).toEqualTypeOf<{ messages: BaseMessage[] }>();
        return { messages: [new AIMessage("hi")] };
      })
      .addNode("text", () => ({ messages: "plain text" }))
      .addNode("dict", () => ({ messages: [{ role: "assistant", content: "hi" }] }))
      .addEdge(LG.START, "chat")
      .addEdge("chat", "text")
      .addEdge("text", "dict")
      .compile();
    const lgRun = () => lg.invoke({ messages: [new HumanMessage("hello")] });
    expectTypeOf<Resolved<typeof lgRun>>().toEqualTypeOf<{ messages: BaseMessage[] }>();
    expectTypeOf<Resolved<typeof lgRun>["messages"]>().toEqualTypeOf<BaseMessage[]>();
    const _lgText = () => lg.invoke({ messages: "hello" });
    const _lgDict = () => lg.invoke({ messages: [{ role: "user", content: "hello" }] });
    const _lgTuple = () => lg.invoke({ messages: [["user", "hello"]] });
    // @ts-expect-error not messages
    const _lgBad = () => lg.invoke({ messages: 5 });

    const il = new IL.StateGraph(IL.MessagesAnnotation)
      .addNode("chat", (state) => {
        expectTypeOf(state).toEqualTypeOf<{ messages: BaseMessage[] }>();
        return { messages: [new AIMessage("hi")] };
      })
      .addNode("text", () => ({ messages: "plain text" }))
      .addNode("dict", () => ({ messages: [{ role: "assistant", content: "hi" }] }))
      .addEdge(IL.START, "chat")
      .addEdge("chat", "text")
      .addEdge("text", "dict")
      .compile();
    const ilRun = () => il.invoke({ messages: [new HumanMessage("hello")] });
    expectTypeOf<Resolved<typeof ilRun>["messages"]>().toEqualTypeOf<BaseMessage[]>();
    const _ilText = () => il.invoke({ messages: "hello" });
    const _ilDict = () => il.invoke({ messages: [{ role: "user", content: "hello" }] });
    const _ilTuple = () => il.invoke({ messages: [["user", "hello"]] });
    /* INTERLUDE-FAILS: invoke resolves to the state & { __interrupt__?: Interrupt[] }
       (LG: exactly { messages: BaseMessage[] })
    expectTypeOf<Resolved<typeof ilRun>>().toEqualTypeOf<{ messages: BaseMessage[] }>();
    */
    // @ts-expect-error not messages
    const _ilBad = () => il.invoke({ messages: 5 });
  });

  it("the quickstart agent: a typed callModel, ToolNode, toolsCondition / a hand-written router", () => {
    const lgCallModel = async (state: typeof LG.MessagesAnnotation.State) => {
      const response = await model().invoke(state.messages);
      return { messages: [response] };
    };
    const lgShouldContinue = (state: typeof LG.MessagesAnnotation.State) => {
      const last = state.messages[state.messages.length - 1] as AIMessage;
      return last.tool_calls?.length ? "tools" : LG.END;
    };
    const lg = new LG.StateGraph(LG.MessagesAnnotation)
      .addNode("agent", lgCallModel)
      .addNode("tools", new LGP.ToolNode([]))
      .addEdge(LG.START, "agent")
      .addConditionalEdges("agent", LGP.toolsCondition, ["tools", LG.END])
      .addConditionalEdges("tools", lgShouldContinue, ["tools", LG.END])
      .compile();
    const lgRun = () => lg.invoke({ messages: [new HumanMessage("hi")] });
    expectTypeOf<Resolved<typeof lgRun>["messages"]>().toEqualTypeOf<BaseMessage[]>();

    const ilCallModel = async (state: typeof IL.MessagesAnnotation.State) => {
      const response = await model().invoke(state.messages);
      return { messages: [response] };
    };
    const ilShouldContinue = (state: typeof IL.MessagesAnnotation.State) => {
      const last = state.messages[state.messages.length - 1] as AIMessage;
      return last.tool_calls?.length ? "tools" : IL.END;
    };
    const il = new IL.StateGraph(IL.MessagesAnnotation)
      .addNode("agent", ilCallModel)
      .addNode("tools", new ILP.ToolNode([]))
      .addEdge(IL.START, "agent")
      .addConditionalEdges("agent", ILP.toolsCondition, ["tools", IL.END])
      .addConditionalEdges("tools", ilShouldContinue, ["tools", IL.END])
      .compile();
    const ilRun = () => il.invoke({ messages: [new HumanMessage("hi")] });
    expectTypeOf<Resolved<typeof ilRun>["messages"]>().toEqualTypeOf<BaseMessage[]>();
  });

  it("`...MessagesAnnotation.spec` plus keys of one's own", () => {
    const lgState = LG.Annotation.Root({ ...LG.MessagesAnnotation.spec, summary: LG.Annotation<string>() });
    expectTypeOf<typeof lgState.State>().toEqualTypeOf<{ messages: BaseMessage[]; summary: string }>();
    const lg = new LG.StateGraph(lgState)
      .addNode("summarise", (state) => ({ summary: `${state.messages.length}` }))
      .addEdge(LG.START, "summarise")
      .compile();
    const lgRun = () => lg.invoke({ messages: "hi" });
    expectTypeOf<Resolved<typeof lgRun>>().toEqualTypeOf<{ messages: BaseMessage[]; summary: string }>();

    const ilState = IL.Annotation.Root({ ...IL.MessagesAnnotation.spec, summary: IL.Annotation<string>() });
    expectTypeOf<typeof ilState.State>().toEqualTypeOf<{ messages: BaseMessage[]; summary: string }>();
    const il = new IL.StateGraph(ilState)
      .addNode("summarise", (state) => ({ summary: `${state.messages.length}` }))
      .addEdge(IL.START, "summarise")
      .compile();
    const ilRun = () => il.invoke({ messages: "hi" });
    expectTypeOf<Resolved<typeof ilRun>["summary"]>().toEqualTypeOf<string>();
    /* INTERLUDE-FAILS: invoke resolves to the state & { __interrupt__?: Interrupt[] }
       (LG: exactly { messages: BaseMessage[]; summary: string })
    expectTypeOf<Resolved<typeof ilRun>>().toEqualTypeOf<{ messages: BaseMessage[]; summary: string }>();
    */
  });
});

describe("zod state", () => {
  const Profile = z.object({
    count: z.number().default(0),
    name: z.string(),
    tags: z.array(z.string()).optional(),
  });
  type ProfileState = { count: number; name: string; tags: string[] | undefined };

  it("z.object: node state, invoke input and result", () => {
    const lg = new LG.StateGraph(Profile)
      .addNode("n", (state) => {
        expectTypeOf(state).toEqualTypeOf<ProfileState>();
        return { count: state.count + 1 };
      })
      .addEdge(LG.START, "n")
      .compile();
    const lgRun = () => lg.invoke({ name: "ada" });
    expectTypeOf<Resolved<typeof lgRun>>().toEqualTypeOf<ProfileState>();
    // @ts-expect-error name is a string
    const _lgBad = () => lg.invoke({ name: 1 });

    const il = new IL.StateGraph(Profile)
      .addNode("n", (state) => {
        expectTypeOf(state).toEqualTypeOf<ProfileState>();
        return { count: state.count + 1 };
      })
      .addEdge(IL.START, "n")
      .compile();
    const ilRun = () => il.invoke({ name: "ada" });
    expectTypeOf<Plain<Resolved<typeof ilRun>>>().toEqualTypeOf<ProfileState>();
    /* INTERLUDE-FAILS: a zod state's update is `any` per key (unknown keys are refused, wrong values
       are not): withLangGraph does not keep its reducer's input type, which a key's update may be
    // @ts-expect-error name is a string
    const _ilBad = () => il.invoke({ name: 1 });
    */
    expectTypeOf(il).toBeObject();
  });

  it("a reducer on a zod field (withLangGraph, registry): the update takes the reducer's input", () => {
    const lgLog = z.object({
      log: LGZ.withLangGraph(z.array(z.string()), {
        reducer: {
          fn: (a: string[], b: string | string[]) => a.concat(b),
          schema: z.union([z.string(), z.array(z.string())]),
        },
        default: () => [],
      }),
      seen: z.array(z.string()).register(LGZ.registry, { reducer: { fn: (a: string[], b: string[]) => a.concat(b) } }),
    });
    const lg = new LG.StateGraph(lgLog)
      .addNode("n", (state) => {
        expectTypeOf(state).toEqualTypeOf<{ log: string[]; seen: string[] }>();
        return { log: "one entry" };
      })
      .addEdge(LG.START, "n")
      .compile();
    const lgRun = () => lg.invoke({ log: ["a"] });
    expectTypeOf<Resolved<typeof lgRun>>().toEqualTypeOf<{ log: string[]; seen: string[] }>();

    const ilLog = z.object({
      log: ILZ.withLangGraph(z.array(z.string()), {
        reducer: {
          fn: (a: string[], b: string | string[]) => a.concat(b),
          schema: z.union([z.string(), z.array(z.string())]),
        },
        default: () => [],
      }),
      seen: z.array(z.string()).register(ILZ.registry, { reducer: { fn: (a: string[], b: string[]) => a.concat(b) } }),
    });
    const il = new IL.StateGraph(ilLog)
      .addNode("n", (state) => {
        expectTypeOf(state).toEqualTypeOf<{ log: string[]; seen: string[] }>();
        return { log: state.log.length ? "one entry" : "first" };
      })
      .addEdge(IL.START, "n")
      .compile();
    const ilRun = () => il.invoke({ log: ["a"] });
    expectTypeOf<Plain<Resolved<typeof ilRun>>>().toEqualTypeOf<{ log: string[]; seen: string[] }>();
    expectTypeOf(il).toBeObject();
  });

  it("MessagesZodState", () => {
    const lg = new LG.StateGraph(LG.MessagesZodState)
      .addNode("chat", (state) => {
        expectTypeOf(state).toEqualTypeOf<{ messages: BaseMessage[] }>();
        return { messages: [new AIMessage("hi")] };
      })
      .addEdge(LG.START, "chat")
      .compile();
    const lgRun = () => lg.invoke({ messages: "hello" });
    expectTypeOf<Resolved<typeof lgRun>>().toEqualTypeOf<{ messages: BaseMessage[] }>();

    const il = new IL.StateGraph(ILZ.MessagesZodState)
      .addNode("chat", (state) => {
        expectTypeOf(state).toEqualTypeOf<{ messages: BaseMessage[] }>();
        return { messages: [new AIMessage(`${state.messages.length}`)] };
      })
      .addEdge(IL.START, "chat")
      .compile();
    const ilRun = () => il.invoke({ messages: "hello" });
    expectTypeOf<Plain<Resolved<typeof ilRun>>>().toEqualTypeOf<{ messages: BaseMessage[] }>();
    expectTypeOf(il).toBeObject();
  });
});

describe("StateSchema", () => {
  const lgSchema = new LG.StateSchema({
    messages: LG.MessagesValue,
    count: z.number().default(0),
    items: new LG.ReducedValue(
      z.array(z.string()).default(() => []),
      {
        inputSchema: z.string(),
        reducer: (current: string[], next: string) => [...current, next],
      },
    ),
  });
  const ilSchema = new IL.StateSchema({
    messages: IL.MessagesValue,
    count: z.number().default(0),
    items: new IL.ReducedValue(
      z.array(z.string()).default(() => []),
      {
        inputSchema: z.string(),
        reducer: (current: string[], next: string) => [...current, next],
      },
    ),
  });
  type Values = { messages: BaseMessage[]; count: number; items: string[] };

  it("State and Update helpers", () => {
    expectTypeOf<typeof lgSchema.State>().toEqualTypeOf<Values>();
    expectTypeOf<typeof lgSchema.Update>().toEqualTypeOf<{
      messages?: LG.OverwriteValue<BaseMessage[]> | LG.Messages | undefined;
      count?: number | undefined;
      items?: string | LG.OverwriteValue<string[]> | undefined;
    }>();

    expectTypeOf<typeof ilSchema.State>().toEqualTypeOf<Values>();
    expectTypeOf<typeof ilSchema.Update>().toEqualTypeOf<{
      messages?: IL.OverwriteValue<BaseMessage[]> | IL.Messages | undefined;
      count?: number | undefined;
      items?: string | IL.OverwriteValue<string[]> | undefined;
    }>();
  });

  it("node state, reducer input in updates, invoke input and result", () => {
    const lg = new LG.StateGraph(lgSchema)
      .addNode("n", (state) => {
        expectTypeOf(state).toEqualTypeOf<Values>();
        return { items: "one item" };
      })
      .addEdge(LG.START, "n")
      .compile();
    const lgRun = () => lg.invoke({ messages: "hi", items: "first" });
    expectTypeOf<Resolved<typeof lgRun>>().toEqualTypeOf<Values>();
    // @ts-expect-error items takes one string
    const _lgBad = () => lg.invoke({ items: 1 });

    const il = new IL.StateGraph(ilSchema)
      .addNode("n", (state) => {
        expectTypeOf(state).toEqualTypeOf<Values>();
        return { items: "one item" };
      })
      .addEdge(IL.START, "n")
      .compile();
    const ilRun = () => il.invoke({ messages: "hi", items: "first" });
    expectTypeOf<Resolved<typeof ilRun>["items"]>().toEqualTypeOf<string[]>();
    /* INTERLUDE-FAILS: invoke resolves to the state & { __interrupt__?: Interrupt[] } (LG: exactly Values)
    expectTypeOf<Resolved<typeof ilRun>>().toEqualTypeOf<Values>();
    */
    // @ts-expect-error items takes one string
    const _ilBad = () => il.invoke({ items: 1 });
  });

  it("`typeof schema.Node`", () => {
    const lgNode: typeof lgSchema.Node = (state) => ({ count: state.count + 1 });
    expectTypeOf(lgNode).parameter(0).toEqualTypeOf<Values>();

    const ilNode: typeof ilSchema.Node = (state) => ({ count: state.count + 1 });
    expectTypeOf(ilNode).parameter(0).toEqualTypeOf<Values>();
  });
});

describe("input / output schemas", () => {
  it("Annotation: { stateSchema, input, output }", () => {
    const lgFull = LG.Annotation.Root({ question: LG.Annotation<string>(), answer: LG.Annotation<string>() });
    const lgIn = LG.Annotation.Root({ question: LG.Annotation<string>() });
    const lgOut = LG.Annotation.Root({ answer: LG.Annotation<string>() });
    const lg = new LG.StateGraph({ stateSchema: lgFull, input: lgIn, output: lgOut })
      .addNode("respond", (state) => {
        expectTypeOf(state).toEqualTypeOf<{ question: string; answer: string }>();
        return { answer: state.question };
      })
      .addEdge(LG.START, "respond")
      .compile();
    const lgRun = () => lg.invoke({ question: "why?" });
    expectTypeOf<Resolved<typeof lgRun>>().toEqualTypeOf<{ answer: string }>();
    // @ts-expect-error not an input key
    const _lgBad = () => lg.invoke({ answer: "because" });

    const ilFull = IL.Annotation.Root({ question: IL.Annotation<string>(), answer: IL.Annotation<string>() });
    const ilIn = IL.Annotation.Root({ question: IL.Annotation<string>() });
    const ilOut = IL.Annotation.Root({ answer: IL.Annotation<string>() });
    const il = new IL.StateGraph({ stateSchema: ilFull, input: ilIn, output: ilOut })
      .addNode("respond", (state) => {
        expectTypeOf(state).toEqualTypeOf<{ question: string; answer: string }>();
        return { answer: state.question };
      })
      .addEdge(IL.START, "respond")
      .compile();
    const ilRun = () => il.invoke({ question: "why?" });
    expectTypeOf<Plain<Resolved<typeof ilRun>>>().toEqualTypeOf<{ answer: string }>();
    // @ts-expect-error not an input key
    const _ilBad = () => il.invoke({ answer: "because" });
    expectTypeOf(il).toBeObject();
  });

  it("Annotation: new StateGraph(state, { output })", () => {
    const lgFull = LG.Annotation.Root({ question: LG.Annotation<string>(), answer: LG.Annotation<string>() });
    const lgOut = LG.Annotation.Root({ answer: LG.Annotation<string>() });
    const lg = new LG.StateGraph(lgFull, { output: lgOut })
      .addNode("respond", (state) => ({ answer: state.question }))
      .addEdge(LG.START, "respond")
      .compile();
    const lgRun = () => lg.invoke({ question: "why?" });
    expectTypeOf<Resolved<typeof lgRun>>().toEqualTypeOf<{ answer: string }>();

    const ilFull = IL.Annotation.Root({ question: IL.Annotation<string>(), answer: IL.Annotation<string>() });
    const ilOut = IL.Annotation.Root({ answer: IL.Annotation<string>() });
    const il = new IL.StateGraph(ilFull, { output: ilOut })
      .addNode("respond", (state) => ({ answer: state.question }))
      .addEdge(IL.START, "respond")
      .compile();
    const ilRun = () => il.invoke({ question: "why?" });
    expectTypeOf<Plain<Resolved<typeof ilRun>>>().toEqualTypeOf<{ answer: string }>();
    expectTypeOf(il).toBeObject();
  });

  it("zod: { state, input, output }", () => {
    const init = {
      state: z.object({ question: z.string(), answer: z.string().optional() }),
      input: z.object({ question: z.string() }),
      output: z.object({ answer: z.string() }),
    };
    const lg = new LG.StateGraph(init)
      .addNode("respond", (state) => {
        expectTypeOf(state).toEqualTypeOf<{ question: string; answer: string | undefined }>();
        return { answer: state.question };
      })
      .addEdge(LG.START, "respond")
      .compile();
    const lgRun = () => lg.invoke({ question: "why?" });
    expectTypeOf<Resolved<typeof lgRun>>().toEqualTypeOf<{ answer: string }>();

    const il = new IL.StateGraph(init)
      .addNode("respond", (state) => {
        expectTypeOf(state).toEqualTypeOf<{ question: string; answer: string | undefined }>();
        return { answer: state.question };
      })
      .addEdge(IL.START, "respond")
      .compile();
    const ilRun = () => il.invoke({ question: "why?" });
    expectTypeOf<Plain<Resolved<typeof ilRun>>>().toEqualTypeOf<{ answer: string }>();
    expectTypeOf(il).toBeObject();
  });
});

describe("context schema", () => {
  const Context = z.object({ userId: z.string() });

  it("runtime.context is typed; invoke's context is checked", () => {
    const lgState = LG.Annotation.Root({ greeting: LG.Annotation<string>() });
    const lg = new LG.StateGraph(lgState, { context: Context })
      .addNode("greet", (_state, runtime) => {
        expectTypeOf(runtime.context).toEqualTypeOf<{ userId: string } | undefined>();
        return { greeting: `hi ${runtime.context?.userId}` };
      })
      .addEdge(LG.START, "greet")
      .compile();
    const _lgRun = () => lg.invoke({}, { context: { userId: "u1" } });
    // @ts-expect-error userId is a string
    const _lgBad = () => lg.invoke({}, { context: { userId: 1 } });

    const ilState = IL.Annotation.Root({ greeting: IL.Annotation<string>() });
    const il = new IL.StateGraph(ilState, { context: Context })
      .addNode("greet", (_state, runtime) => {
        expectTypeOf(runtime.context.userId).toEqualTypeOf<string>();
        /* INTERLUDE-FAILS: runtime.context is typed present, { userId: string } (LG: also | undefined):
           Interlude's own tests read it without `?.` (packages/interlude/test/state-definitions.test.ts)
        expectTypeOf(runtime.context).toEqualTypeOf<{ userId: string } | undefined>();
        */
        return { greeting: `hi ${runtime.context?.userId}` };
      })
      .addEdge(IL.START, "greet")
      .compile();
    const _ilRun = () => il.invoke({}, { context: { userId: "u1" } });
    /* INTERLUDE-FAILS: invoke's `context` is not checked against the context schema
       (LG: { userId: string }; { userId: 1 } is refused). Interlude's own tests invoke with a wrong
       context to check the run-time refusal (packages/interlude/test/state-definitions.test.ts).
    // @ts-expect-error userId is a string
    const _ilBad = () => il.invoke({}, { context: { userId: 1 } });
    */
  });
});

describe("Command and Send", () => {
  it("generics inferred from the arguments", () => {
    expectTypeOf(new LG.Command({ resume: "yes" })).toEqualTypeOf<
      LG.Command<string, Record<string, unknown>, string>
    >();
    expectTypeOf(new LG.Command({ goto: "next", update: { count: 1 } })).toEqualTypeOf<
      LG.Command<unknown, { count: number }, "next">
    >();
    expectTypeOf(new LG.Send("worker", { id: 1 })).toEqualTypeOf<LG.Send<"worker", { id: number }>>();

    expectTypeOf(new IL.Command({ resume: "yes" })).toEqualTypeOf<
      IL.Command<string, Record<string, unknown>, string>
    >();
    expectTypeOf(new IL.Command({ goto: "next", update: { count: 1 } })).toEqualTypeOf<
      IL.Command<unknown, { count: number }, "next">
    >();
    expectTypeOf(new IL.Send("worker", { id: 1 })).toEqualTypeOf<IL.Send<"worker", { id: number }>>();
  });

  it("invoke takes a Command (resume) or null", () => {
    const lgState = LG.Annotation.Root({ ok: LG.Annotation<boolean>() });
    const lg = new LG.StateGraph(lgState)
      .addNode("ask", () => ({}))
      .addEdge(LG.START, "ask")
      .compile();
    const _lgResume = () => lg.invoke(new LG.Command({ resume: true }), { configurable: { thread_id: "t" } });
    const _lgNull = () => lg.invoke(null, { configurable: { thread_id: "t" } });

    const ilState = IL.Annotation.Root({ ok: IL.Annotation<boolean>() });
    const il = new IL.StateGraph(ilState)
      .addNode("ask", () => ({}))
      .addEdge(IL.START, "ask")
      .compile();
    const _ilResume = () => il.invoke(new IL.Command({ resume: true }), { configurable: { thread_id: "t" } });
    const _ilNull = () => il.invoke(null, { configurable: { thread_id: "t" } });
  });
});

describe("interrupt", () => {
  it("interrupt<Input, Resume>(value) returns Resume; the value must be Input", () => {
    const lgAsk = () => LG.interrupt<{ question: string }, boolean>({ question: "ship it?" });
    expectTypeOf(lgAsk).returns.toEqualTypeOf<boolean>();
    // @ts-expect-error the question is a string
    const _lgBad = () => LG.interrupt<{ question: string }, boolean>({ question: 1 });
    expectTypeOf(() => LG.interrupt("free")).returns.toBeAny();

    expectTypeOf(() => IL.interrupt("free")).returns.toBeAny();
    const ilAsk = () => IL.interrupt<{ question: string }, boolean>({ question: "ship it?" });
    expectTypeOf(ilAsk).returns.toEqualTypeOf<boolean>();
    // @ts-expect-error the question is a string
    const _ilBad = () => IL.interrupt<{ question: string }, boolean>({ question: 1 });
  });

  it("isInterrupted<Value>(result) narrows to `{ __interrupt__: Interrupt<Value>[] }`", () => {
    const lgState = LG.Annotation.Root({ ok: LG.Annotation<boolean>() });
    const lg = new LG.StateGraph(lgState)
      .addNode("ask", () => ({}))
      .addEdge(LG.START, "ask")
      .compile();
    const _lgCheck = async () => {
      const result = await lg.invoke({});
      if (LG.isInterrupted<{ question: string }>(result)) {
        expectTypeOf(result[LG.INTERRUPT][0].value).toEqualTypeOf<{ question: string } | undefined>();
        expectTypeOf(result[LG.INTERRUPT][0].id).toEqualTypeOf<string | undefined>();
      }
    };

    const ilState = IL.Annotation.Root({ ok: IL.Annotation<boolean>() });
    const il = new IL.StateGraph(ilState)
      .addNode("ask", () => ({}))
      .addEdge(IL.START, "ask")
      .compile();
    const _ilCheck = async () => {
      const result = await il.invoke({});
      if (IL.isInterrupted<{ question: string }>(result)) {
        // Interlude's Interrupt always has its id and value (LangGraph.js types both optional);
        // invoke's result already declares `__interrupt__` (Interrupt<any>), so the value reads as given.
        const question: { question: string } = result[IL.INTERRUPT][0].value;
        expectTypeOf(question.question).toEqualTypeOf<string>();
        expectTypeOf(result[IL.INTERRUPT][0].id).toEqualTypeOf<string>();
      }
    };
    expectTypeOf(il).toBeObject();
  });
});

describe("functional API", () => {
  it("task(name, fn) keeps the arguments, resolves to the result", () => {
    const lgDouble = LG.task("double", (x: number) => x * 2);
    expectTypeOf(lgDouble).parameters.toEqualTypeOf<[x: number]>();
    expectTypeOf(lgDouble).returns.toEqualTypeOf<Promise<number>>();
    const lgFetch = LG.task({ name: "fetch" }, async (url: string, tries: number) => ({ url, tries }));
    expectTypeOf(lgFetch).parameters.toEqualTypeOf<[url: string, tries: number]>();
    expectTypeOf<Awaited<ReturnType<typeof lgFetch>>>().toEqualTypeOf<{ url: string; tries: number }>();

    const ilDouble = IL.task("double", (x: number) => x * 2);
    expectTypeOf(ilDouble).parameters.toEqualTypeOf<[x: number]>();
    expectTypeOf(ilDouble).returns.toEqualTypeOf<Promise<number>>();
    const ilFetch = IL.task({ name: "fetch" }, async (url: string, tries: number) => ({ url, tries }));
    expectTypeOf(ilFetch).parameters.toEqualTypeOf<[url: string, tries: number]>();
    expectTypeOf<Awaited<ReturnType<typeof ilFetch>>>().toEqualTypeOf<{ url: string; tries: number }>();
  });

  it("entrypoint: invoke takes the input and resolves to the output", () => {
    const lgFlow = LG.entrypoint("essay", async (input: { topic: string }) => ({ essay: input.topic }));
    const lgRun = () => lgFlow.invoke({ topic: "cats" });
    expectTypeOf<Resolved<typeof lgRun>>().toEqualTypeOf<{ essay: string }>();
    // @ts-expect-error the input is { topic: string }
    const _lgBad = () => lgFlow.invoke({ title: "cats" });

    const ilFlow = IL.entrypoint("essay", async (input: { topic: string }) => ({ essay: input.topic }));
    const ilRun = () => ilFlow.invoke({ topic: "cats" });
    expectTypeOf<Resolved<typeof ilRun>>().toEqualTypeOf<{ essay: string }>();
    // @ts-expect-error the input is { topic: string }
    const _ilBad = () => ilFlow.invoke({ title: "cats" });
    expectTypeOf(ilFlow).toBeObject();
  });

  it("entrypoint.final: invoke resolves to `value`; getPreviousState<T>() is T", () => {
    const lgFlow = LG.entrypoint({ name: "counter", checkpointer: new LG.MemorySaver() }, async (n: number) => {
      expectTypeOf(LG.getPreviousState<number>()).toEqualTypeOf<number>();
      return LG.entrypoint.final({ value: n * 2, save: String(n) });
    });
    const lgRun = () => lgFlow.invoke(1);
    expectTypeOf<Resolved<typeof lgRun>>().toEqualTypeOf<number>();

    const ilFlow = IL.entrypoint({ name: "counter", checkpointer: new IL.MemorySaver() }, async (n: number) => {
      expectTypeOf(IL.getPreviousState<number>()).toEqualTypeOf<number>();
      return IL.entrypoint.final({ value: n * 2, save: String(n) });
    });
    const ilRun = () => ilFlow.invoke(1);
    expectTypeOf<Resolved<typeof ilRun>>().toEqualTypeOf<number>();
    expectTypeOf(ilFlow).toBeObject();
  });
});

describe("createReactAgent", () => {
  it("invoke resolves to messages and structuredResponse", () => {
    const lg = LGP.createReactAgent({ llm: model(), tools: [] });
    const lgRun = () => lg.invoke({ messages: [{ role: "user", content: "hi" }] });
    expectTypeOf<Resolved<typeof lgRun>>().toEqualTypeOf<{
      messages: BaseMessage[];
      structuredResponse: Record<string, any>;
    }>();

    const il = ILP.createReactAgent({ llm: model(), tools: [] });
    const ilRun = () => il.invoke({ messages: [{ role: "user", content: "hi" }] });
    expectTypeOf<Plain<Resolved<typeof ilRun>>>().toEqualTypeOf<{
      messages: BaseMessage[];
      structuredResponse: Record<string, any>;
    }>();
  });

  it("responseFormat types structuredResponse", () => {
    const Answer = z.object({ answer: z.string(), confidence: z.number() });
    const lg = LGP.createReactAgent({ llm: model(), tools: [], responseFormat: Answer });
    const lgRun = () => lg.invoke({ messages: "hi" });
    expectTypeOf<Resolved<typeof lgRun>>().toEqualTypeOf<{
      messages: BaseMessage[];
      structuredResponse: { answer: string; confidence: number };
    }>();

    const il = ILP.createReactAgent({ llm: model(), tools: [], responseFormat: Answer });
    const ilRun = () => il.invoke({ messages: "hi" });
    expectTypeOf<Plain<Resolved<typeof ilRun>>>().toEqualTypeOf<{
      messages: BaseMessage[];
      structuredResponse: { answer: string; confidence: number };
    }>();
  });

  it("a custom stateSchema adds its keys to invoke's input and result", () => {
    const lgState = LG.Annotation.Root({ ...LG.MessagesAnnotation.spec, userName: LG.Annotation<string>() });
    const lg = LGP.createReactAgent({ llm: model(), tools: [], stateSchema: lgState });
    const lgRun = () => lg.invoke({ messages: "hi", userName: "ada" });
    expectTypeOf<Resolved<typeof lgRun>>().toEqualTypeOf<{
      messages: BaseMessage[];
      structuredResponse: Record<string, any>;
      userName: string;
    }>();
    // @ts-expect-error userName is a string
    const _lgBad = () => lg.invoke({ messages: "hi", userName: 1 });

    const ilState = IL.Annotation.Root({ ...IL.MessagesAnnotation.spec, userName: IL.Annotation<string>() });
    const il = ILP.createReactAgent({ llm: model(), tools: [], stateSchema: ilState });
    const ilRun = () => il.invoke({ messages: "hi", userName: "ada" });
    expectTypeOf<Plain<Resolved<typeof ilRun>>>().toEqualTypeOf<{
      messages: BaseMessage[];
      structuredResponse: Record<string, any>;
      userName: string;
    }>();
    // @ts-expect-error userName is a string
    const _ilBad = () => il.invoke({ messages: "hi", userName: 1 });
  });
});

describe("threads and streams", () => {
  const lgState = LG.Annotation.Root({
    count: LG.Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }),
    title: LG.Annotation<string>(),
  });
  const ilState = IL.Annotation.Root({
    count: IL.Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }),
    title: IL.Annotation<string>(),
  });
  type Values = { count: number; title: string };
  type Updates = { bump?: { count: number }; name?: { title: string } };

  const lg = new LG.StateGraph(lgState)
    .addNode("bump", () => ({ count: 1 }))
    .addNode("name", () => ({ title: "t" }))
    .addEdge(LG.START, "bump")
    .addEdge("bump", "name")
    .compile({ checkpointer: new LG.MemorySaver() });
  const il = new IL.StateGraph(ilState)
    .addNode("bump", () => ({ count: 1 }))
    .addNode("name", () => ({ title: "t" }))
    .addEdge(IL.START, "bump")
    .addEdge("bump", "name")
    .compile({ checkpointer: new IL.MemorySaver() });
  const thread = { configurable: { thread_id: "t" } };

  it("getState(): values is any; next is string[]", () => {
    const lgSnap = () => lg.getState(thread);
    expectTypeOf<Resolved<typeof lgSnap>["values"]>().toBeAny();
    expectTypeOf<Resolved<typeof lgSnap>["next"]>().toEqualTypeOf<string[]>();

    const _ilSnap = () => il.getState(thread);
    expectTypeOf<Resolved<typeof _ilSnap>["values"]>().toBeAny();
    expectTypeOf<Resolved<typeof _ilSnap>["next"]>().toEqualTypeOf<string[]>();
  });

  it("stream chunks by stream mode", () => {
    const lgValues = () => lg.stream({ title: "x" }, { streamMode: "values" });
    expectTypeOf<ChunkOf<typeof lgValues>>().toEqualTypeOf<Values>();
    const lgDefault = () => lg.stream({ title: "x" });
    expectTypeOf<ChunkOf<typeof lgDefault>>().toEqualTypeOf<Updates>();
    const lgUpdates = () => lg.stream({ title: "x" }, { streamMode: "updates" });
    expectTypeOf<ChunkOf<typeof lgUpdates>>().toEqualTypeOf<Updates>();
    const lgBoth = () => lg.stream({ title: "x" }, { streamMode: ["values", "updates"] });
    expectTypeOf<ChunkOf<typeof lgBoth>>().toEqualTypeOf<["values", Values] | ["updates", Updates]>();
    const lgMessages = () => lg.stream({ title: "x" }, { streamMode: "messages" });
    expectTypeOf<ChunkOf<typeof lgMessages>>().toEqualTypeOf<[BaseMessage, Record<string, any>]>();
    const lgSub = () => lg.stream({ title: "x" }, { streamMode: "values", subgraphs: true });
    expectTypeOf<ChunkOf<typeof lgSub>>().toEqualTypeOf<[string[], Values]>();

    const ilValues = () => il.stream({ title: "x" }, { streamMode: "values" });
    expectTypeOf<ChunkOf<typeof ilValues>>().toEqualTypeOf<Values>();
    const ilDefault = () => il.stream({ title: "x" });
    expectTypeOf<ChunkOf<typeof ilDefault>>().toEqualTypeOf<Updates>();
    const ilUpdates = () => il.stream({ title: "x" }, { streamMode: "updates" });
    expectTypeOf<ChunkOf<typeof ilUpdates>>().toEqualTypeOf<Updates>();
    const ilBoth = () => il.stream({ title: "x" }, { streamMode: ["values", "updates"] });
    expectTypeOf<ChunkOf<typeof ilBoth>>().toEqualTypeOf<["values", Values] | ["updates", Updates]>();
    const ilMessages = () => il.stream({ title: "x" }, { streamMode: "messages" });
    expectTypeOf<ChunkOf<typeof ilMessages>>().toEqualTypeOf<[BaseMessage, Record<string, any>]>();
    const ilSub = () => il.stream({ title: "x" }, { streamMode: "values", subgraphs: true });
    expectTypeOf<ChunkOf<typeof ilSub>>().toEqualTypeOf<[string[], Values]>();
  });

  it("getConfig() is a LangGraphRunnableConfig", () => {
    expectTypeOf(LG.getConfig).returns.toEqualTypeOf<LG.LangGraphRunnableConfig>();
    expectTypeOf(IL.getConfig).returns.toEqualTypeOf<IL.LangGraphRunnableConfig>();
  });
});

describe("what LangGraph.js accepts keeps compiling (invoke's input, nodes' updates and config, stream chunks)", () => {
  const lgState = LG.Annotation.Root({
    ...LG.MessagesAnnotation.spec,
    count: LG.Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }),
    title: LG.Annotation<string>(),
  });
  const ilState = IL.Annotation.Root({
    ...IL.MessagesAnnotation.spec,
    count: IL.Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }),
    title: IL.Annotation<string>(),
  });
  const thread = { configurable: { thread_id: "t" } };
  const Context = z.object({ userId: z.string() });

  it("invoke: message-likes, partial updates, overwrites, a whole state, a Command, null", () => {
    const lg = new LG.StateGraph(lgState)
      .addNode("n", () => ({}))
      .addEdge(LG.START, "n")
      .compile();
    const lgWhole: typeof lgState.State = { messages: [], count: 1, title: "t" };
    const lgUpdate: typeof lgState.Update = { title: "t" };
    const _lg = [
      () => lg.invoke({ messages: "hi" }),
      () => lg.invoke({ messages: new HumanMessage("hi") }),
      () => lg.invoke({ messages: [new HumanMessage("hi"), { role: "user", content: "hi" }, ["user", "hi"], "hi"] }),
      () => lg.invoke({ count: new LG.Overwrite(0) }),
      () => lg.invoke({ count: { __overwrite__: 0 }, messages: new LG.Overwrite([]) }),
      () => lg.invoke({}),
      () => lg.invoke(lgWhole),
      () => lg.invoke(lgUpdate),
      () => lg.invoke(new LG.Command({ resume: { answer: 1 }, update: { title: "t" } }), thread),
      () => lg.invoke(new LG.Command({ goto: "n" }), thread),
      () => lg.invoke(null, { ...thread, recursionLimit: 5 }),
      () => lg.batch([{ title: "a" }, null]),
    ];

    const il = new IL.StateGraph(ilState)
      .addNode("n", () => ({}))
      .addEdge(IL.START, "n")
      .compile();
    const ilWhole: typeof ilState.State = { messages: [], count: 1, title: "t" };
    const ilUpdate: typeof ilState.Update = { title: "t" };
    const _il = [
      () => il.invoke({ messages: "hi" }),
      () => il.invoke({ messages: new HumanMessage("hi") }),
      () => il.invoke({ messages: [new HumanMessage("hi"), { role: "user", content: "hi" }, ["user", "hi"], "hi"] }),
      () => il.invoke({ count: new IL.Overwrite(0) }),
      () => il.invoke({ count: { __overwrite__: 0 }, messages: new IL.Overwrite([]) }),
      () => il.invoke({}),
      () => il.invoke(ilWhole),
      () => il.invoke(ilUpdate),
      () => il.invoke(new IL.Command({ resume: { answer: 1 }, update: { title: "t" } }), thread),
      () => il.invoke(new IL.Command({ goto: "n" }), thread),
      () => il.invoke(null, { ...thread, recursionLimit: 5 }),
      () => il.batch([{ title: "a" }, null]),
    ];
  });

  it("nodes: updates with extra keys, Commands, lists of Commands, Runnables, subgraphs, record form, own input schema", () => {
    const lgPrivate = LG.Annotation.Root({ secret: LG.Annotation<string>() });
    const lgSub = new LG.StateGraph(lgState)
      .addNode("inner", () => ({ count: 1 }))
      .addEdge(LG.START, "inner")
      .compile();
    const lgPartial = (state: typeof lgState.State): Partial<typeof lgState.State> => ({ title: state.title });
    new LG.StateGraph(lgState)
      .addNode("extra", () => ({ count: 1, notAKey: true }))
      .addNode("overwrite", () => ({ count: new LG.Overwrite(0), messages: { __overwrite__: [] } }))
      .addNode("chat", () => ({ messages: [new AIMessage("a"), { role: "assistant", content: "b" }, "c"] }))
      .addNode("command", () => new LG.Command({ goto: "extra", update: { count: 1 } }), { ends: ["extra"] })
      .addNode("commands", () => [new LG.Command({ goto: "extra" })])
      .addNode("either", (state) => (state.count ? new LG.Command({ goto: "extra" }) : { title: "t" }))
      .addNode("partial", lgPartial)
      .addNode(
        "runnable",
        RunnableLambda.from((state: typeof lgState.State) => ({ title: state.title })),
      )
      .addNode("tools", new LGP.ToolNode([]))
      .addNode("sub", lgSub)
      .addNode("private", (state: { secret: string }) => ({ title: state.secret }), { input: lgPrivate })
      .addNode({ a: () => ({ count: 1 }), b: (state) => ({ title: state.title }) });

    const ilPrivate = IL.Annotation.Root({ secret: IL.Annotation<string>() });
    const ilSub = new IL.StateGraph(ilState)
      .addNode("inner", () => ({ count: 1 }))
      .addEdge(IL.START, "inner")
      .compile();
    const ilPartial = (state: typeof ilState.State): Partial<typeof ilState.State> => ({ title: state.title });
    new IL.StateGraph(ilState)
      .addNode("extra", () => ({ count: 1, notAKey: true }))
      .addNode("overwrite", () => ({ count: new IL.Overwrite(0), messages: { __overwrite__: [] } }))
      .addNode("chat", () => ({ messages: [new AIMessage("a"), { role: "assistant", content: "b" }, "c"] }))
      .addNode("command", () => new IL.Command({ goto: "extra", update: { count: 1 } }), { ends: ["extra"] })
      .addNode("commands", () => [new IL.Command({ goto: "extra" })])
      .addNode("either", (state) => (state.count ? new IL.Command({ goto: "extra" }) : { title: "t" }))
      .addNode("partial", ilPartial)
      .addNode(
        "runnable",
        RunnableLambda.from((state: typeof ilState.State) => ({ title: state.title })),
      )
      .addNode("tools", new ILP.ToolNode([]))
      .addNode("sub", ilSub)
      .addNode("private", (state: { secret: string }) => ({ title: state.secret }), { input: ilPrivate })
      .addNode({ a: () => ({ count: 1 }), b: (state) => ({ title: state.title }) });
  });

  it("a node's config: a LangChain RunnableConfig, Runtime<Context>, passed on to a model and a subgraph", () => {
    const lgSub = new LG.StateGraph(lgState)
      .addNode("inner", () => ({}))
      .addEdge(LG.START, "inner")
      .compile();
    new LG.StateGraph(lgState, { context: Context })
      .addNode("model", async (state, config) => ({ messages: await model().invoke(state.messages, config) }))
      .addNode("annotated", async (_state, config: RunnableConfig) => ({
        messages: await model().invoke("hi", config),
      }))
      .addNode("optional", (_state, config?: RunnableConfig) => ({ title: String(config?.tags) }))
      .addNode("runtime", (_state, runtime: LG.Runtime<{ userId: string }>) => ({ title: runtime.context?.userId }))
      .addNode("sub", async (state, config) => ({ count: (await lgSub.invoke(state, config)).count }))
      .addNode("store", async (_state, config) => {
        await config.store?.put(["ns"], "key", { value: 1 });
        config.writer({ progress: 1 });
        return { title: String(config.executionInfo?.nodeAttempt) };
      });

    const ilSub = new IL.StateGraph(ilState)
      .addNode("inner", () => ({}))
      .addEdge(IL.START, "inner")
      .compile();
    new IL.StateGraph(ilState, { context: Context })
      .addNode("model", async (state, config) => ({ messages: await model().invoke(state.messages, config) }))
      .addNode("annotated", async (_state, config: RunnableConfig) => ({
        messages: await model().invoke("hi", config),
      }))
      .addNode("optional", (_state, config?: RunnableConfig) => ({ title: String(config?.tags) }))
      .addNode("runtime", (_state, runtime: IL.Runtime<{ userId: string }>) => ({ title: runtime.context?.userId }))
      .addNode("sub", async (state, config) => ({ count: (await ilSub.invoke(state, config)).count }))
      .addNode("store", async (_state, config) => {
        await config.store?.put(["ns"], "key", { value: 1 });
        config.writer({ progress: 1 });
        return { title: String(config.executionInfo?.nodeAttempt) };
      });
  });

  it("stream chunks read as LangGraph.js types them", () => {
    const lg = new LG.StateGraph(lgState)
      .addNode("bump", () => ({ count: 1 }))
      .addEdge(LG.START, "bump")
      .compile();
    const _lg = async () => {
      for await (const chunk of await lg.stream({ title: "x" }))
        for (const [node, update] of Object.entries(chunk)) console.log(node, update?.count);
      for await (const [message, metadata] of await lg.stream({}, { streamMode: "messages" }))
        console.log(message.content, metadata.langgraph_node);
      for await (const [mode, chunk] of await lg.stream({}, { streamMode: ["values", "custom"] }))
        console.log(mode === "values" ? chunk.messages.length : chunk);
      for await (const [namespace, chunk] of await lg.stream({}, { streamMode: "updates", subgraphs: true }))
        console.log(namespace.join("|"), chunk.bump?.count);
      for await (const chunk of await lg.stream(new LG.Command({ resume: 1 }), { ...thread, streamMode: "custom" }))
        console.log(chunk.anything);
      await lg.updateState(thread, { messages: "more", count: 1 }, "bump");
    };

    const il = new IL.StateGraph(ilState)
      .addNode("bump", () => ({ count: 1 }))
      .addEdge(IL.START, "bump")
      .compile();
    const _il = async () => {
      for await (const chunk of await il.stream({ title: "x" }))
        for (const [node, update] of Object.entries(chunk)) console.log(node, update?.count);
      for await (const [message, metadata] of await il.stream({}, { streamMode: "messages" }))
        console.log(message.content, metadata.langgraph_node);
      for await (const [mode, chunk] of await il.stream({}, { streamMode: ["values", "custom"] }))
        console.log(mode === "values" ? chunk.messages.length : chunk);
      for await (const [namespace, chunk] of await il.stream({}, { streamMode: "updates", subgraphs: true }))
        console.log(namespace.join("|"), chunk.bump?.count);
      for await (const chunk of await il.stream(new IL.Command({ resume: 1 }), { ...thread, streamMode: "custom" }))
        console.log(chunk.anything);
      await il.updateState(thread, { messages: "more", count: 1 }, "bump");
    };
  });

  it("other states: StateSchema overwrites, a zod reducer's input, { input, output } alone, createReactAgent's stream", () => {
    const lgSchema = new LG.StateSchema({ messages: LG.MessagesValue, count: z.number().default(0) });
    const lgSchemaGraph = new LG.StateGraph(lgSchema)
      .addNode("n", () => ({ messages: new LG.Overwrite([]) }))
      .addEdge(LG.START, "n")
      .compile();
    const lgLog = z.object({
      log: LGZ.withLangGraph(z.array(z.string()), {
        reducer: {
          fn: (a: string[], b: string | string[]) => a.concat(b),
          schema: z.union([z.string(), z.array(z.string())]),
        },
        default: () => [],
      }),
    });
    const lgLogGraph = new LG.StateGraph(lgLog)
      .addNode("n", () => ({ log: "entry" }))
      .addEdge(LG.START, "n")
      .compile();
    const lgIn = LG.Annotation.Root({ question: LG.Annotation<string>() });
    const lgOut = LG.Annotation.Root({ answer: LG.Annotation<string>() });
    const lgIo = new LG.StateGraph({ input: lgIn, output: lgOut })
      .addNode("n", () => ({}))
      .addEdge(LG.START, "n")
      .compile();
    const lgAgent = LGP.createReactAgent({ llm: model(), tools: [] });
    const _lg = async () => {
      await lgSchemaGraph.invoke({ messages: "hi", count: 1 });
      await lgLogGraph.invoke({ log: "a" });
      await lgIo.invoke({ question: "q" });
      for await (const chunk of await lgAgent.stream({ messages: "hi" }, { streamMode: "values" }))
        console.log(chunk.messages.at(-1)?.content);
    };

    const ilSchema = new IL.StateSchema({ messages: IL.MessagesValue, count: z.number().default(0) });
    const ilSchemaGraph = new IL.StateGraph(ilSchema)
      .addNode("n", () => ({ messages: new IL.Overwrite([]) }))
      .addEdge(IL.START, "n")
      .compile();
    const ilLog = z.object({
      log: ILZ.withLangGraph(z.array(z.string()), {
        reducer: {
          fn: (a: string[], b: string | string[]) => a.concat(b),
          schema: z.union([z.string(), z.array(z.string())]),
        },
        default: () => [],
      }),
    });
    const ilLogGraph = new IL.StateGraph(ilLog)
      .addNode("n", () => ({ log: "entry" }))
      .addEdge(IL.START, "n")
      .compile();
    const ilIn = IL.Annotation.Root({ question: IL.Annotation<string>() });
    const ilOut = IL.Annotation.Root({ answer: IL.Annotation<string>() });
    const ilIo = new IL.StateGraph({ input: ilIn, output: ilOut })
      .addNode("n", () => ({}))
      .addEdge(IL.START, "n")
      .compile();
    const ilAgent = ILP.createReactAgent({ llm: model(), tools: [] });
    const _il = async () => {
      await ilSchemaGraph.invoke({ messages: "hi", count: 1 });
      await ilLogGraph.invoke({ log: "a" });
      await ilIo.invoke({ question: "q" });
      for await (const chunk of await ilAgent.stream({ messages: "hi" }, { streamMode: "values" }))
        console.log(chunk.messages.at(-1)?.content);
    };
  });
});

describe("exported type helpers", () => {
  const lgState = LG.Annotation.Root({
    count: LG.Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }),
    title: LG.Annotation<string>(),
  });
  const ilState = IL.Annotation.Root({
    count: IL.Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }),
    title: IL.Annotation<string>(),
  });
  type State = { count: number; title: string };
  const Question = z.object({ question: z.string() });
  const Answer = z.object({ answer: z.string() });

  it("GraphNode types a node written apart from the graph: its state, context and Command routes", () => {
    type LgConfig = Parameters<LG.GraphNode<typeof lgState, { user: string }>>[1];
    expectTypeOf<LgConfig["context"]>().toEqualTypeOf<{ user: string } | undefined>();
    const lgNode: LG.GraphNode<typeof lgState, Record<string, any>, "bump" | "name"> = (state) => {
      expectTypeOf(state).toEqualTypeOf<State>();
      return state.count > 1 ? new LG.Command({ goto: "name" }) : { title: "t" };
    };
    const _lg = new LG.StateGraph(lgState).addNode("bump", lgNode).addEdge(LG.START, "bump").compile();

    type IlConfig = Parameters<IL.GraphNode<typeof ilState, { user: string }>>[1];
    expectTypeOf<IlConfig["context"]>().toEqualTypeOf<{ user: string } | undefined>();
    const ilNode: IL.GraphNode<typeof ilState, Record<string, any>, "bump" | "name"> = (state) => {
      expectTypeOf(state).toEqualTypeOf<State>();
      return state.count > 1 ? new IL.Command({ goto: "name" }) : { title: "t" };
    };
    const _il = new IL.StateGraph(ilState).addNode("bump", ilNode).addEdge(IL.START, "bump").compile();
  });

  it("GraphNode with a type bag: input and output schemas of their own", () => {
    const lgNode: LG.GraphNode<{ InputSchema: typeof Question; OutputSchema: typeof Answer }> = (state) => {
      expectTypeOf(state).toEqualTypeOf<{ question: string }>();
      return { answer: state.question };
    };
    expectTypeOf(lgNode).parameter(0).toEqualTypeOf<{ question: string }>();
    expectTypeOf(lgNode).returns.toEqualTypeOf<LG.GraphNodeReturnValue<{ answer?: string | undefined }, string>>();

    const ilNode: IL.GraphNode<{ InputSchema: typeof Question; OutputSchema: typeof Answer }> = (state) => {
      expectTypeOf(state).toEqualTypeOf<{ question: string }>();
      return { answer: state.question };
    };
    expectTypeOf(ilNode).parameter(0).toEqualTypeOf<{ question: string }>();
    /* INTERLUDE-FAILS: a zod schema's update is typed `any` per key (withLangGraph's reducer types are not
       kept), as StateGraph types a zod state's nodes (IL: GraphNodeReturnValue<{ answer?: any }, string>)
    expectTypeOf(ilNode).returns.toEqualTypeOf<IL.GraphNodeReturnValue<{ answer?: string | undefined }, string>>();
    */
  });

  it("ConditionalEdgeRouter returns node names, END or Sends", () => {
    const lgRouter: LG.ConditionalEdgeRouter<typeof lgState, Record<string, any>, "bump"> = (state) =>
      state.count > 1 ? LG.END : state.title ? "bump" : [new LG.Send("bump", state)];
    type LgRoute = "bump" | typeof LG.END | LG.Send<"bump", State> | Array<"bump" | LG.Send<"bump", State>>;
    expectTypeOf(lgRouter).returns.toEqualTypeOf<LgRoute | Promise<LgRoute>>();
    const _lg = new LG.StateGraph(lgState)
      .addNode("bump", () => ({ count: 1 }))
      .addConditionalEdges(LG.START, lgRouter)
      .compile();

    const ilRouter: IL.ConditionalEdgeRouter<typeof ilState, Record<string, any>, "bump"> = (state) =>
      state.count > 1 ? IL.END : state.title ? "bump" : [new IL.Send("bump", state)];
    type IlRoute = "bump" | typeof IL.END | IL.Send<"bump", State> | Array<"bump" | IL.Send<"bump", State>>;
    expectTypeOf(ilRouter).returns.toEqualTypeOf<IlRoute | Promise<IlRoute>>();
    const _il = new IL.StateGraph(ilState)
      .addNode("bump", () => ({ count: 1 }))
      .addConditionalEdges(IL.START, ilRouter)
      .compile();
  });

  it("ExtractStateType and ExtractUpdateType read any schema, and fall back for anything else", () => {
    const lgSchema = new LG.StateSchema({ question: z.string() });
    expectTypeOf<LG.ExtractStateType<typeof lgState>>().toEqualTypeOf<State>();
    expectTypeOf<LG.ExtractStateType<typeof lgSchema>>().toEqualTypeOf<{ question: string }>();
    expectTypeOf<LG.ExtractStateType<typeof Question>>().toEqualTypeOf<{ question: string }>();
    expectTypeOf<LG.ExtractStateType<{ plain: number }>>().toEqualTypeOf<{ plain: number }>();
    expectTypeOf<LG.ExtractUpdateType<typeof lgSchema>>().toEqualTypeOf<{ question?: string | undefined }>();
    expectTypeOf<LG.ExtractUpdateType<{ plain: number }>>().toEqualTypeOf<{ plain?: number }>();
    expectTypeOf<LG.ExtractUpdateType<typeof lgState>>().toEqualTypeOf<{
      count?: number | LG.OverwriteValue<number> | undefined;
      title?: string | undefined;
    }>();

    const ilSchema = new IL.StateSchema({ question: z.string() });
    expectTypeOf<IL.ExtractStateType<typeof ilState>>().toEqualTypeOf<State>();
    expectTypeOf<IL.ExtractStateType<typeof ilSchema>>().toEqualTypeOf<{ question: string }>();
    expectTypeOf<IL.ExtractStateType<typeof Question>>().toEqualTypeOf<{ question: string }>();
    expectTypeOf<IL.ExtractStateType<{ plain: number }>>().toEqualTypeOf<{ plain: number }>();
    expectTypeOf<IL.ExtractUpdateType<typeof ilSchema>>().toEqualTypeOf<{ question?: string | undefined }>();
    expectTypeOf<IL.ExtractUpdateType<{ plain: number }>>().toEqualTypeOf<{ plain?: number }>();
    expectTypeOf<IL.ExtractUpdateType<typeof ilState>>().toEqualTypeOf<typeof ilState.Update>();
    expectTypeOf<IL.ExtractUpdateType<typeof ilState>>().toEqualTypeOf<{
      count?: number | IL.OverwriteValue<number> | undefined;
      title?: string | undefined;
    }>();
  });

  it("OverwriteValue: an Overwrite is one, and so is its plain form", () => {
    expectTypeOf(new LG.Overwrite(1)).toExtend<LG.OverwriteValue<number>>();
    const _lgPlain: LG.OverwriteValue<number> = { __overwrite__: 1 };

    expectTypeOf(new IL.Overwrite(1)).toExtend<IL.OverwriteValue<number>>();
    const _ilPlain: IL.OverwriteValue<number> = { __overwrite__: 1 };
  });
});
