/** A streamed message read straight from its fields is the same on the wire as through LangChain's toJSON(). */
import { AIMessage, AIMessageChunk, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { toWire, wireJson, wireMessage } from "../dist/wire/messages.js";

const withId = <T extends { id?: string; lc_kwargs: Record<string, unknown> }>(m: T, id: string): T => {
  m.id = id;
  m.lc_kwargs.id = id;
  return m;
};

describe("wireMessage", () => {
  it.each([
    ["a token", new AIMessageChunk({ content: "w1" })],
    ["a token given an id afterwards", withId(new AIMessageChunk({ content: "w1" }), "run-1")],
    [
      "a tool call chunk",
      new AIMessageChunk({
        content: "",
        tool_call_chunks: [{ name: "weather", args: '{"city":', id: "call_1", index: 0 }],
      }),
    ],
    [
      "an answer with tool calls and usage",
      new AIMessage({
        content: [{ type: "text", text: "hi" }],
        tool_calls: [{ name: "weather", args: { city: "Paris" }, id: "call_1", type: "tool_call" }],
        usage_metadata: { input_tokens: 1, output_tokens: 2, total_tokens: 3 },
        response_metadata: { model: "m" },
        id: "a1",
      }),
    ],
    ["a human message with a name", new HumanMessage({ content: "hello", name: "ann", id: "h1" })],
    ["a system message", new SystemMessage("be brief")],
    [
      "a tool result",
      new ToolMessage({ content: "sunny", tool_call_id: "call_1", status: "success", artifact: { t: 1 } }),
    ],
    [
      "merged chunks",
      new AIMessageChunk({ content: "It", id: "x" }).concat(new AIMessageChunk({ content: " is", id: "x" })),
    ],
  ])("%s", (_, message) => {
    expect(JSON.stringify(wireMessage(message))).toBe(JSON.stringify(toWire(message)));
  });

  it("a value that is not a live message goes through toWire", () => {
    const plain = { type: "ai", content: "x" };
    expect(wireMessage(plain)).toBe(plain);
  });
});

describe("wireJson, mostly plain", () => {
  it.each([
    ["a token's [chunk, metadata]", [wireMessage(new AIMessageChunk({ content: "w1", id: "r" })), { tags: ["t"] }]],
    ["a live message in the metadata", [{ type: "ai", content: "x" }, { seen: new HumanMessage({ content: "hi" }) }]],
    ["a stored LangChain form", [{ lc: 1, type: "constructor", id: ["x", "AIMessage"], kwargs: { content: "y" } }]],
    ['text that reads "lc":1', [{ type: "ai", content: '{"lc":1,"type":"constructor"}' }]],
  ])("%s: the same text as with the replacer throughout", (_, value) => {
    expect(wireJson(value, true)).toBe(wireJson(value));
  });

  it("a LangChain form inside is written in wire shape", () => {
    expect(JSON.parse(wireJson([{ seen: new HumanMessage({ content: "hi", id: "h" }) }], true))).toEqual([
      { seen: expect.objectContaining({ type: "human", content: "hi", id: "h" }) },
    ]);
  });
});

describe("wireJson", () => {
  const stored = {
    lc: 1,
    type: "constructor",
    id: ["langchain_core", "messages", "AIMessage"],
    kwargs: { content: "y" },
  };
  let deep: unknown = { form: stored };
  for (let i = 0; i < 70; i++) deep = { inner: deep };
  it.each([
    ["a plain state", { rounds: 3, answers: ["a", "b"], __interrupt__: [{ id: "i", value: { n: 2 } }] }],
    ["a stored LangChain form three levels down", { a: { b: [{ c: stored }] } }],
    ["a live message in a list", { messages: [new HumanMessage({ content: "hi", id: "h" })] }],
    ["a date", { at: new Date(0), n: 1 }],
    ["a form deeper than the walk looks", deep],
    ["a string", "text"],
    ["null", null],
  ])("%s: the same text as every message converted first", (_, value) => {
    expect(wireJson(value)).toBe(JSON.stringify(toWire(value)));
  });

  it("a stored form is written in wire shape", () => {
    expect(JSON.parse(wireJson({ a: [stored] }))).toEqual({ a: [{ content: "y", type: "ai" }] });
  });
});
