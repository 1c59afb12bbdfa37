/** Point 5 of issue 12: ToolNode, toolsCondition, createReactAgent and the tool-review step. */
import {
  Command,
  END,
  InvalidResumeError,
  interrupt,
  MemorySaver,
  MessagesAnnotation,
  START,
  StateGraph,
} from "@interlude/core";
import {
  createReactAgent,
  createToolReviewNode,
  reviewCondition,
  ToolNode,
  toolsCondition,
  UnsupportedAgentOptionError,
} from "@interlude/core/prebuilt";
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ScriptedChatModel } from "../../../examples/agents/lib/scripted-model.mjs";

const call = (name: string, args: Record<string, unknown>, id: string) => ({
  name,
  args,
  id,
  type: "tool_call" as const,
});

function tools(log: string[]) {
  const send = tool(
    async ({ to }: { to: string }) => {
      log.push(`send:${to}`);
      return `sent to ${to}`;
    },
    { name: "send", description: "Send.", schema: z.object({ to: z.string() }) },
  );
  const lookup = tool(
    async ({ q }: { q: string }) => {
      log.push(`lookup:${q}`);
      return { found: q };
    },
    { name: "lookup", description: "Look up.", schema: z.object({ q: z.string() }) },
  );
  const broken = tool(
    async () => {
      throw new Error("disk full");
    },
    { name: "broken", description: "Fails.", schema: z.object({}) },
  );
  return [send, lookup, broken];
}

/** Proposes send + lookup, then answers with what the tools said. */
const twoCalls = new ScriptedChatModel((messages: BaseMessage[]) =>
  messages.at(-1)!.getType() === "tool"
    ? new AIMessage(
        messages
          .filter((m) => m.getType() === "tool")
          .map((m) => m.content)
          .join(" | "),
      )
    : new AIMessage({
        content: "",
        tool_calls: [call("send", { to: "bob" }, "c1"), call("lookup", { q: "bob" }, "c2")],
      }),
);

describe("ToolNode", () => {
  it("runs the last AI message's calls; unknown tools and failures become error ToolMessages", async () => {
    const log: string[] = [];
    const node = new ToolNode(tools(log));
    const ai = new AIMessage({
      content: "",
      tool_calls: [call("send", { to: "a" }, "1"), call("nope", {}, "2"), call("broken", {}, "3")],
    });
    const { messages } = (await node.invoke({ messages: [ai] })) as { messages: ToolMessage[] };
    expect(log).toEqual(["send:a"]);
    expect(messages.map((m) => [m.tool_call_id, m.status ?? "success"])).toEqual([
      ["1", "success"],
      ["2", "error"],
      ["3", "error"],
    ]);
    expect(messages[1]!.content).toBe('Error: Tool "nope" not found.\n Please fix your mistakes.');
    expect(messages[2]!.content).toMatch(/disk full/);
  });

  it("skips calls a ToolMessage already answered (a rejected call never runs)", async () => {
    const log: string[] = [];
    const ai = new AIMessage({
      content: "",
      tool_calls: [call("send", { to: "a" }, "1"), call("send", { to: "b" }, "2")],
    });
    const answered = new ToolMessage({ content: "rejected", tool_call_id: "1" });
    const out = (await new ToolNode(tools(log)).invoke([ai, answered])) as ToolMessage[];
    expect(log).toEqual(["send:b"]);
    expect(out.map((m) => m.tool_call_id)).toEqual(["2"]);
  });

  it("a call that finished runs once although another call's interrupt() makes the node run again", async () => {
    const log: string[] = [];
    const slowSend = tool(
      async ({ to }: { to: string }) => {
        for (let i = 0; i < 5; i++) await Promise.resolve();
        log.push(`send:${to}`);
        return `sent to ${to}`;
      },
      { name: "send", description: "Send.", schema: z.object({ to: z.string() }) },
    );
    const pay = tool(
      async ({ amount }: { amount: number }) => {
        const ok = interrupt<unknown, boolean>(`pay ${amount}?`);
        log.push(`pay:${amount}:${ok}`);
        return ok ? "paid" : "not paid";
      },
      { name: "pay", description: "Pay.", schema: z.object({ amount: z.number() }) },
    );
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("tools", new ToolNode([slowSend, pay]))
      .addEdge(START, "tools")
      .compile({ checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "tool-asks" } };
    const ai = new AIMessage({
      content: "",
      tool_calls: [call("pay", { amount: 5 }, "p1"), call("send", { to: "a" }, "s1"), call("send", { to: "b" }, "s2")],
    });
    const paused = await graph.invoke({ messages: [ai] }, config);
    expect(paused.__interrupt__?.[0]?.value).toBe("pay 5?");
    expect(log).toEqual(["send:a", "send:b"]);
    const done = await graph.invoke(new Command({ resume: true }), config);
    expect(log).toEqual(["send:a", "send:b", "pay:5:true"]);
    expect(done.messages.slice(1).map((m) => [(m as ToolMessage).tool_call_id, m.content])).toEqual([
      ["p1", "paid"],
      ["s1", "sent to a"],
      ["s2", "sent to b"],
    ]);
  });

  it("rethrows tool errors when handleToolErrors is false", async () => {
    const ai = new AIMessage({ content: "", tool_calls: [call("broken", {}, "1")] });
    await expect(new ToolNode(tools([]), { handleToolErrors: false }).invoke({ messages: [ai] })).rejects.toThrow(
      /disk full/,
    );
  });

  it("toolsCondition routes on the last message's tool calls", () => {
    expect(toolsCondition({ messages: [new AIMessage({ content: "", tool_calls: [call("send", {}, "1")] })] })).toBe(
      "tools",
    );
    expect(toolsCondition([new AIMessage("done")])).toBe(END);
  });
});

describe("createReactAgent", () => {
  it("pauses before tools with interruptBefore, and runs them once when continued", async () => {
    const log: string[] = [];
    const agent = createReactAgent({
      llm: twoCalls,
      tools: tools(log),
      checkpointer: new MemorySaver(),
      interruptBefore: ["tools"],
    });
    const config = { configurable: { thread_id: "react" } };
    await agent.invoke({ messages: [new HumanMessage("go")] }, config);
    expect((await agent.getState(config)).next).toEqual(["tools"]);
    expect(log).toEqual([]);
    const done = await agent.invoke(null, config);
    expect(log).toEqual(["send:bob", "lookup:bob"]);
    expect(done.messages.at(-1)!.content).toBe('sent to bob | {"found":"bob"}');
  });

  it("refuses an option it does not know (a misspelling) instead of ignoring it", () => {
    expect(() => createReactAgent({ llm: twoCalls, tools: [], responseFromat: {} } as never)).toThrow(
      UnsupportedAgentOptionError,
    );
  });
});

describe("tool review (humanInTheLoopMiddleware protocol)", () => {
  const reviewAgent = (log: string[], saver = new MemorySaver()) =>
    createReactAgent({
      llm: twoCalls,
      tools: tools(log),
      checkpointer: saver,
      toolReview: { interruptOn: { send: { allowedDecisions: ["approve", "reject"] }, lookup: true } },
    });

  it("asks with actionRequests and reviewConfigs", async () => {
    const paused = await reviewAgent([]).invoke(
      { messages: [new HumanMessage("go")] },
      { configurable: { thread_id: "ask" } },
    );
    expect(paused.__interrupt__?.[0]?.value).toEqual({
      actionRequests: [
        { name: "send", args: { to: "bob" }, description: expect.stringContaining("Tool: send") },
        { name: "lookup", args: { q: "bob" }, description: expect.stringContaining("Tool: lookup") },
      ],
      reviewConfigs: [
        { actionName: "send", allowedDecisions: ["approve", "reject"] },
        { actionName: "lookup", allowedDecisions: ["approve", "edit", "reject"] },
      ],
    });
  });

  it("edit runs a call with the edited arguments, reject tells the model why and never runs it", async () => {
    const log: string[] = [];
    const saver = new MemorySaver();
    const config = { configurable: { thread_id: "decide" } };
    await reviewAgent(log, saver).invoke({ messages: [new HumanMessage("go")] }, config);
    // A second agent object over the same saver resumes, as another process would.
    const done = await reviewAgent(log, saver).invoke(
      new Command({
        resume: {
          decisions: [
            { type: "reject", message: "not bob" },
            { type: "edit", editedAction: { name: "lookup", args: { q: "carol" } } },
          ],
        },
      }),
      config,
    );
    expect(log).toEqual(["lookup:carol"]);
    const toolMessages = done.messages.filter((m: BaseMessage) => m.getType() === "tool") as ToolMessage[];
    expect(toolMessages.map((m) => [m.tool_call_id, m.status, m.content])).toEqual([
      ["c1", "error", "not bob"],
      ["c2", "success", '{"found":"carol"}'],
    ]);
    expect(done.messages.at(-1)!.content).toBe('not bob | {"found":"carol"}');
  });

  it("an approved call runs exactly once although the review node runs again on resume", async () => {
    const log: string[] = [];
    const saver = new MemorySaver();
    const config = { configurable: { thread_id: "once" } };
    const agent = reviewAgent(log, saver);
    await agent.invoke({ messages: [new HumanMessage("go")] }, config);
    await agent.invoke(new Command({ resume: { decisions: [{ type: "approve" }, { type: "approve" }] } }), config);
    expect(log).toEqual(["send:bob", "lookup:bob"]);
    expect((await agent.getState(config)).next).toEqual([]);
  });

  it("refuses a wrong answer (a decision not allowed, a missing one) and keeps the question pending", async () => {
    const log: string[] = [];
    const agent = reviewAgent(log);
    const config = { configurable: { thread_id: "wrong" } };
    await agent.invoke({ messages: [new HumanMessage("go")] }, config);
    const notAllowed = new Command({
      resume: { decisions: [{ type: "edit", editedAction: { name: "send", args: { to: "x" } } }, { type: "approve" }] },
    });
    await expect(agent.invoke(notAllowed, config)).rejects.toThrow(InvalidResumeError);
    await expect(agent.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), config)).rejects.toThrow(
      /Expected 2 decision/,
    );
    expect(log).toEqual([]);
    expect((await agent.getState(config)).tasks[0]?.interrupts).toHaveLength(1);
  });

  it("works as a node of a hand-built graph, routed by reviewCondition", async () => {
    const log: string[] = [];
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("agent", async (s) => ({ messages: [await twoCalls.invoke(s.messages)] }))
      .addNode("review", createToolReviewNode({ interruptOn: { send: true } }))
      .addNode("tools", new ToolNode(tools(log)))
      .addEdge(START, "agent")
      .addConditionalEdges("agent", toolsCondition, { tools: "review", [END]: END })
      .addConditionalEdges("review", reviewCondition("tools", "agent"), ["tools", "agent"])
      .addEdge("tools", "agent")
      .compile({ checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "hand" } };
    const paused = await graph.invoke({ messages: [new HumanMessage("go")] }, config);
    // Only "send" is reviewed; "lookup" runs unreviewed after the review.
    expect(paused.__interrupt__?.[0]?.value.actionRequests.map((a: { name: string }) => a.name)).toEqual(["send"]);
    await graph.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), config);
    expect(log).toEqual(["send:bob", "lookup:bob"]);
  });

  it("puts each reviewed tool's argument schema in the request, for the reviewer's edit form", async () => {
    const review = createToolReviewNode({
      interruptOn: { send: true, lookup: { allowedDecisions: ["approve"], argsSchema: { type: "object" } } },
      tools: tools([]),
    });
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("agent", async (s) => ({ messages: [await twoCalls.invoke(s.messages)] }))
      .addNode("review", review)
      .addEdge(START, "agent")
      .addEdge("agent", "review")
      .compile({ checkpointer: new MemorySaver() });
    const paused = await graph.invoke(
      { messages: [new HumanMessage("go")] },
      { configurable: { thread_id: "schema" } },
    );
    const configs = paused.__interrupt__?.[0]?.value.reviewConfigs;
    // From the tool's zod schema where the config gives none; the config's own schema wins.
    expect(configs[0].argsSchema).toMatchObject({
      type: "object",
      properties: { to: { type: "string" } },
      required: ["to"],
    });
    expect(configs[1].argsSchema).toEqual({ type: "object" });
  });
});
