/**
 * LangChain's ambient config inside nodes (langchain/ambient.ts): what a runnable called
 * without a config inherits, with the callbacks of a traced run (stream mode "messages").
 */
import { Annotation, START, StateGraph } from "@interlude/core";
import { getContextVariable, setContextVariable } from "@langchain/core/context";
import { RunnableLambda } from "@langchain/core/runnables";
import { AsyncLocalStorageProviderSingleton } from "@langchain/core/singletons";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { describe, expect, it } from "vitest";

const State = Annotation.Root({
  seen: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
});

type Store = Record<PropertyKey, unknown> & { tracingEnabled?: unknown; createChild?: unknown };

describe("ambient LangChain config in nodes", () => {
  it("gives each of two parallel nodes its own config, in a run tree with tracing disabled", async () => {
    const ambientNode = (name: string) => async () => {
      await new Promise((resolve) => setImmediate(resolve));
      const config = AsyncLocalStorageProviderSingleton.getRunnableConfig() as { metadata?: Record<string, unknown> };
      const store = AsyncLocalStorageProviderSingleton.getInstance().getStore() as Store;
      const treeLike = typeof store.createChild === "function" && store.tracingEnabled === false;
      return { seen: [`${name}:${String(config?.metadata?.langgraph_node)}:${treeLike}`] };
    };
    const graph = new StateGraph(State)
      .addNode("a", ambientNode("a"))
      .addNode("b", ambientNode("b"))
      .addEdge(START, "a")
      .addEdge(START, "b")
      .compile();
    let final: string[] = [];
    for await (const [mode, chunk] of await graph.stream({}, { streamMode: ["messages", "values"] }))
      if (mode === "values") final = (chunk as { seen: string[] }).seen;
    expect([...final].sort()).toEqual(["a:a:true", "b:b:true"]);
  });

  it("keeps context variables set before the run and in the node, and the node's config after setContextVariable", async () => {
    const model = new FakeListChatModel({ responses: ["ok"] });
    const read = RunnableLambda.from(() => `${getContextVariable("outer")}/${getContextVariable("inner")}`);
    const graph = new StateGraph(State)
      .addNode("agent", async () => {
        setContextVariable("inner", "in");
        const variables = await read.invoke(null);
        // Called without a config after setContextVariable: its tokens still report to this node.
        const answer = await model.invoke("hi");
        return { seen: [variables, String(answer.content)] };
      })
      .addEdge(START, "agent")
      .compile();
    const run = async () => {
      setContextVariable("outer", "out");
      const tokens: string[] = [];
      let final: string[] = [];
      for await (const [mode, chunk] of await graph.stream({}, { streamMode: ["messages", "values"] })) {
        if (mode === "messages")
          tokens.push(`${(chunk as [{ content: string }, { langgraph_node: string }])[1].langgraph_node}`);
        else final = (chunk as { seen: string[] }).seen;
      }
      return { tokens, final };
    };
    const { tokens, final } = await AsyncLocalStorageProviderSingleton.getInstance().run(undefined, run);
    expect(final).toEqual(["out/in", "ok"]);
    expect(tokens).toEqual(["agent", "agent"]);
  });
});
