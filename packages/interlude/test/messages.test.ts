/** Point 2 of issue 12: messages state with LangGraph's semantics. */
import {
  addMessages,
  Command,
  interrupt,
  loadLangChain,
  MemorySaver,
  MessageIdRequiredError,
  MessagesAnnotation,
  messagesStateReducer,
  OutsideNodeError,
  pushMessage,
  REMOVE_ALL_MESSAGES,
  START,
  StateGraph,
  UnknownMessageIdError,
} from "@interlude/core";
import { AIMessage, AIMessageChunk, type BaseMessage, HumanMessage, RemoveMessage } from "@langchain/core/messages";
import { beforeAll, describe, expect, it } from "vitest";

beforeAll(() => loadLangChain());

const summary = (messages: BaseMessage[]) => messages.map((m) => `${m.getType()}:${m.content}`);

describe("messagesStateReducer", () => {
  it("gives every message an id, in state and in the constructor arguments that are stored", () => {
    const out = messagesStateReducer([new HumanMessage("a")], [new AIMessage("b")]);
    for (const message of out) {
      expect(typeof message.id).toBe("string");
      expect(message.lc_kwargs.id).toBe(message.id);
    }
    expect(new Set(out.map((m) => m.id)).size).toBe(2);
  });

  it.each([
    ["appends", [new AIMessage({ content: "b", id: "2" })], ["human:a", "ai:b"]],
    ["replaces a message with the same id, in place", [new HumanMessage({ content: "a2", id: "1" })], ["human:a2"]],
    ["removes by id", [new RemoveMessage({ id: "1" })], []],
    [
      "clears everything before REMOVE_ALL_MESSAGES",
      [new AIMessage({ content: "x", id: "3" }), new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), new AIMessage("y")],
      ["ai:y"],
    ],
    ["coerces message-likes", ["hey", { role: "assistant", content: "ho" }], ["human:a", "human:hey", "ai:ho"]],
  ])("%s", (_name, update, expected) => {
    expect(summary(messagesStateReducer([new HumanMessage({ content: "a", id: "1" })], update as never))).toEqual(
      expected,
    );
  });

  it("turns a chunk into its whole class", () => {
    const [message] = messagesStateReducer([], [new AIMessageChunk({ content: "streamed", id: "c" })]);
    expect(message).toBeInstanceOf(AIMessage);
    expect(message).not.toBeInstanceOf(AIMessageChunk);
  });

  it("refuses to remove an id that is not there, with a typed error", () => {
    const attempt = () =>
      messagesStateReducer([new HumanMessage({ content: "a", id: "1" })], [new RemoveMessage({ id: "9" })]);
    expect(attempt).toThrow(UnknownMessageIdError);
    try {
      attempt();
    } catch (error) {
      expect((error as UnknownMessageIdError).code).toBe("UNKNOWN_MESSAGE_ID");
    }
  });

  it("addMessages is the same reducer", () => {
    expect(addMessages).toBe(messagesStateReducer);
  });
});

describe("MessagesAnnotation", () => {
  it("holds a conversation across a pause: messages stored, revived as classes, updated by id on resume", async () => {
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("draft", () => ({ messages: [new AIMessage({ content: "draft 1", id: "d" })] }))
      .addNode("review", (state) => {
        const verdict = interrupt<unknown, string>(state.messages.at(-1)!.content);
        return { messages: [new AIMessage({ content: `draft 1 (${verdict})`, id: "d" })] };
      })
      .addEdge(START, "draft")
      .addEdge("draft", "review")
      .compile({ checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "conv" } };
    const paused = await graph.invoke({ messages: [{ role: "user", content: "write" }] }, config);
    expect(paused.__interrupt__?.[0]?.value).toBe("draft 1");
    const done = await graph.invoke(new Command({ resume: "ok" }), config);
    expect(summary(done.messages)).toEqual(["human:write", "ai:draft 1 (ok)"]);
    const { values } = await graph.getState(config);
    expect(values.messages[0]).toBeInstanceOf(HumanMessage);
    expect(values.messages[1]).toBeInstanceOf(AIMessage);
  });
});

describe("pushMessage", () => {
  it("is refused outside a node and without an id, with errors that say what to do", async () => {
    expect(() => pushMessage(new AIMessage({ id: "m", content: "x" }))).toThrow(OutsideNodeError);
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("n", () => {
        pushMessage(new AIMessage("no id"));
        return {};
      })
      .addEdge(START, "n")
      .compile();
    const error = await graph.invoke({ messages: [] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MessageIdRequiredError);
    expect((error as MessageIdRequiredError).code).toBe("MESSAGE_ID_REQUIRED");
  });

  it("a pushed message is not written when the node then pauses; the answered run writes it once", async () => {
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("ask", () => {
        pushMessage(new AIMessage({ id: "q", content: "asking" }));
        return { messages: [new AIMessage({ id: "a", content: interrupt<string, string>("ok?") })] };
      })
      .addEdge(START, "ask")
      .compile({ checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "t" } };
    await graph.invoke({ messages: [] }, config);
    expect((await graph.getState(config)).values.messages).toEqual([]);
    const done = await graph.invoke(new Command({ resume: "yes" }), config);
    expect(done.messages.map((m: BaseMessage) => [m.id, m.content])).toEqual([
      ["q", "asking"],
      ["a", "yes"],
    ]);
  });
});
