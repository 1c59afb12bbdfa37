// A run's LangGraph Server events told as the thread-centric protocol's events (what
// @langchain/react's useStream reads): table cases over the pure translator.
import { describe, expect, it } from "vitest";
import { type ProtocolEventBody, ProtocolTranslator } from "../dist/protocol/translate.js";

const chunk = (id: string, content: string, extra: Record<string, unknown> = {}) => [
  { type: "ai", id, content, ...extra },
  { langgraph_node: "agent" },
];
const kinds = (events: ProtocolEventBody[]) =>
  events.map((e) => (e.method === "messages" ? (e.data as { event: string }).event : e.method));

describe("the protocol translator", () => {
  it("streams a chat model's chunks as one message: start, text deltas, finish when the node's update comes", () => {
    const t = new ProtocolTranslator();
    const out = [
      ...t.translate("messages", chunk("m1", "Hel")),
      ...t.translate("messages", chunk("m1", "lo")),
      ...t.translate("updates", { agent: { messages: [] } }),
    ];
    expect(kinds(out)).toEqual([
      "message-start",
      "content-block-start",
      "content-block-delta",
      "content-block-delta",
      "content-block-finish",
      "message-finish",
      "updates",
    ]);
    expect(out[0]!.data).toMatchObject({ role: "ai", id: "m1", metadata: { langgraph_node: "agent" } });
    expect(
      out.filter((e) => (e.data as { event?: string }).event === "content-block-delta").map((e) => e.data),
    ).toEqual([
      { event: "content-block-delta", index: 0, delta: { type: "text-delta", text: "Hel" } },
      { event: "content-block-delta", index: 0, delta: { type: "text-delta", text: "lo" } },
    ]);
    expect(out[4]!.data).toEqual({ event: "content-block-finish", index: 0, content: { type: "text", text: "Hello" } });
  });

  it("a new message id closes the previous message", () => {
    const t = new ProtocolTranslator();
    t.translate("messages", chunk("m1", "a"));
    expect(kinds(t.translate("messages", chunk("m2", "b")))).toEqual([
      "content-block-finish",
      "message-finish",
      "message-start",
      "content-block-start",
      "content-block-delta",
    ]);
  });

  it("tool-call chunks are joined and told whole, with parsed arguments, when the message ends", () => {
    const t = new ProtocolTranslator();
    const piece = (args: string, first = false) =>
      chunk("m1", "", {
        tool_call_chunks: [{ index: 0, args, ...(first ? { id: "call_1", name: "send_email" } : {}) }],
      });
    t.translate("messages", piece('{"to":', true));
    t.translate("messages", piece('"bob@example.com"}'));
    const out = t.translate("values", { messages: [] });
    const finish = out.find((e) => (e.data as { event?: string }).event === "content-block-finish");
    expect(finish!.data).toEqual({
      event: "content-block-finish",
      index: 0,
      content: { type: "tool_call", id: "call_1", name: "send_email", args: { to: "bob@example.com" } },
    });
  });

  it("only assistant messages stream; others come with values", () => {
    const t = new ProtocolTranslator();
    expect(t.translate("messages", [{ type: "tool", id: "t1", content: "sent" }, {}])).toEqual([]);
  });

  it("an interrupt is asked once (from updates or values) and values go without __interrupt__", () => {
    const t = new ProtocolTranslator();
    const pending = [{ id: "i1", value: { actionRequests: [] } }];
    expect(t.translate("updates", { __interrupt__: pending })).toEqual([
      { method: "input.requested", data: { interrupt_id: "i1", payload: { actionRequests: [] } } },
    ]);
    expect(t.translate("values", { messages: [1], __interrupt__: pending })).toEqual([
      { method: "values", data: { messages: [1] } },
    ]);
    expect(t.finish("agent")).toEqual([{ method: "lifecycle", data: { event: "interrupted", graph_name: "agent" } }]);
  });

  it.each([
    ["a run that ends", [] as Array<[string, unknown]>, undefined, "completed"],
    ["a run with an error event", [["error", { message: "boom" }]] as Array<[string, unknown]>, undefined, "failed"],
    ["a run finished with an error", [] as Array<[string, unknown]>, "boom", "failed"],
  ])("lifecycle: %s is %s", (_name, events, error, status) => {
    const t = new ProtocolTranslator();
    expect(t.start("agent")).toEqual([{ method: "lifecycle", data: { event: "running", graph_name: "agent" } }]);
    for (const [event, data] of events) t.translate(event, data);
    const [last] = t.finish("agent", error).slice(-1);
    expect(last!.data).toMatchObject({ event: status });
    expect(t.finish("agent")).toEqual([]);
  });

  it("tool events become tool-started / tool-finished / tool-error", () => {
    const t = new ProtocolTranslator();
    expect(
      t.translate("tools", { event: "on_tool_start", toolCallId: "c1", name: "send_email", input: { to: "x" } }),
    ).toEqual([
      {
        method: "tools",
        data: { event: "tool-started", tool_call_id: "c1", tool_name: "send_email", input: { to: "x" } },
      },
    ]);
    expect(t.translate("tools", { event: "on_tool_end", toolCallId: "c1", output: "ok" })[0]!.data).toEqual({
      event: "tool-finished",
      tool_call_id: "c1",
      output: "ok",
    });
    expect(
      t.translate("tools", { event: "on_tool_error", toolCallId: "c1", error: { message: "no" } })[0]!.data,
    ).toMatchObject({ event: "tool-error", message: "no" });
  });
});
