// The pure pieces behind tool review and the conversation view: reading a humanInTheLoopMiddleware
// request, building { decisions }, the edit form's schema and checks, and messages as a conversation.
import { describe, expect, it } from "vitest";
import type { ToolReviewRequest } from "../src/api/types";
import { conversationOf } from "../src/domain/conversation";
import { summarizeAnswer, titleOf } from "../src/domain/human-interrupt";
import { fieldsOf, initialValues } from "../src/domain/schema-form";
import { asToolReview, decisionsFrom, editSchema, issuesByCall } from "../src/domain/tool-review";
import { validateValue } from "../src/domain/validate";

const emailSchema = {
  type: "object",
  properties: { to: { type: "string", format: "email" }, subject: { type: "string", minLength: 1 } },
  required: ["to", "subject"],
};

const request: ToolReviewRequest = {
  actionRequests: [
    { name: "send_email", args: { to: "a@b.co", subject: "Hi" }, description: "Send it?" },
    { name: "delete_file", args: { path: "/tmp/x" } },
  ],
  reviewConfigs: [
    { actionName: "send_email", allowedDecisions: ["approve", "edit", "reject"], argsSchema: emailSchema },
    { actionName: "delete_file", allowedDecisions: ["reject", "approve"] },
  ],
};

describe("tool-review requests", () => {
  it.each([
    [request, true],
    [{ actionRequests: [], reviewConfigs: [] }, false],
    [{ actionRequests: [{ name: "x" }], reviewConfigs: [] }, false],
    [{ action_request: { action: "x", args: {} }, config: {} }, false],
    ["Approve?", false],
  ])("recognises %j as a tool-review request: %s", (value, expected) => {
    expect(!!asToolReview(value)).toBe(expected);
  });

  it("pairs each call with its config, its decisions in a fixed order", () => {
    expect(asToolReview(request)).toEqual([
      {
        name: "send_email",
        args: { to: "a@b.co", subject: "Hi" },
        description: "Send it?",
        allowed: ["approve", "edit", "reject"],
        argsSchema: emailSchema,
      },
      { name: "delete_file", args: { path: "/tmp/x" }, allowed: ["approve", "reject"] },
    ]);
  });

  it("pairs by name when the lists are not in step, and a call with no config allows nothing", () => {
    const calls = asToolReview({
      actionRequests: [...request.actionRequests, { name: "other", args: {} }],
      reviewConfigs: [...request.reviewConfigs].reverse(),
    });
    expect(calls?.map((c) => [c.name, c.allowed])).toEqual([
      ["send_email", ["approve", "edit", "reject"]],
      ["delete_file", ["approve", "reject"]],
      ["other", []],
    ]);
  });

  it("builds { decisions } in the calls' order once every call is decided", () => {
    const calls = asToolReview(request)!;
    expect(decisionsFrom(calls, [{ type: "approve" }, undefined])).toEqual({ undecided: [1] });
    expect(
      decisionsFrom(calls, [
        { type: "edit", args: { to: "c@d.co", subject: "Hi" } },
        { type: "reject", message: "  keep it " },
      ]),
    ).toEqual({
      decisions: [
        { type: "edit", editedAction: { name: "send_email", args: { to: "c@d.co", subject: "Hi" } } },
        { type: "reject", message: "keep it" },
      ],
    });
    expect(decisionsFrom(calls, [{ type: "approve" }, { type: "reject", message: "" }])).toEqual({
      decisions: [{ type: "approve" }, { type: "reject" }],
    });
  });

  it("opens the edit form on the current arguments: fields from argsSchema, else one JSON box", () => {
    const [email, file] = asToolReview(request)!;
    const schema = editSchema(email!);
    const fields = fieldsOf(schema);
    expect(fields.map((f) => [f.key, f.kind, f.required])).toEqual([
      ["to", "text", true],
      ["subject", "text", true],
    ]);
    expect(initialValues(schema, fields)).toEqual({ to: "a@b.co", subject: "Hi" });
    const box = editSchema(file!);
    expect(fieldsOf(box).map((f) => [f.label, f.kind])).toEqual([["Arguments", "json"]]);
    expect(JSON.parse(initialValues(box, fieldsOf(box))[""] as string)).toEqual({ path: "/tmp/x" });
  });

  it("sorts the server's issues by call, paths into an edit made relative to its arguments", () => {
    const { byCall, other } = issuesByCall(
      [
        { message: "bad address", path: ["decisions", 0, "editedAction", "args", "to"] },
        { message: "not allowed", path: ["decisions", { key: 1 }, "type"] },
        { message: "Expected 2 decision(s)" },
      ],
      2,
    );
    expect(byCall).toEqual([[{ message: "bad address", path: ["to"] }], [{ message: "not allowed", path: [] }]]);
    expect(other).toEqual([{ message: "Expected 2 decision(s)" }]);
  });

  it("titles the request and summarizes its answer in a few words", () => {
    expect(titleOf(request)).toBe("Review 2 tool calls: send_email, delete_file");
    expect(titleOf({ ...request, actionRequests: request.actionRequests.slice(0, 1) })).toBe("Review send_email");
    expect(
      summarizeAnswer({
        decisions: [
          { type: "approve" },
          { type: "edit", editedAction: { name: "x", args: { a: 1 } } },
          { type: "reject", message: "no" },
        ],
      }),
    ).toBe('approve, edit {"a":1}, reject "no"');
  });
});

describe("checking arguments against their JSON Schema in the browser", () => {
  it("reports each failing field once, a missing one as Required", () => {
    expect(validateValue(emailSchema, { to: "nope", subject: "" })).toEqual([
      { message: 'String does not match format "email".', path: ["to"] },
      { message: "String is too short (0 < 1).", path: ["subject"] },
    ]);
    expect(validateValue(emailSchema, { to: "a@b.co" })).toEqual([{ message: "Required.", path: ["subject"] }]);
    expect(validateValue(emailSchema, { to: "a@b.co", subject: "Hi" })).toEqual([]);
  });

  it("names the format rather than the regex a zod-made schema adds beside it", () => {
    const schema = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: { to: { type: "string", format: "email", pattern: "^\\S+@\\S+\\.\\S+$" } },
    };
    expect(validateValue(schema, { to: "x" })).toEqual([
      { message: 'String does not match format "email".', path: ["to"] },
    ]);
  });

  it("reports an unexpected property on the object, and a wrong root type at the root", () => {
    const closed = { type: "object", properties: { a: { type: "number" } }, additionalProperties: false };
    expect(validateValue(closed, { a: 1, b: 2 })).toEqual([
      { message: 'Property "b" does not match additional properties schema.', path: [] },
    ]);
    expect(validateValue({ type: "object" }, [1])).toEqual([
      { message: 'Instance type "array" is invalid. Expected "object".', path: [] },
    ]);
  });
});

describe("a thread's messages as a conversation", () => {
  const wire = [
    { type: "human", content: "Refund order 7", id: "m1" },
    {
      type: "ai",
      content: [{ type: "text", text: "On it." }, { type: "image_url" }],
      id: "m2",
      tool_calls: [
        { id: "c1", name: "refund", args: { order: 7 } },
        { id: "c2", name: "notify", args: {} },
      ],
    },
    { type: "tool", content: "refunded", tool_call_id: "c1", name: "refund", status: "success" },
    { type: "tool", content: "rejected", tool_call_id: "c2", name: "notify", status: "error" },
    { type: "tool", content: "stray", tool_call_id: "c9" },
    { type: "ai", content: "Done." },
  ];

  it("attaches each tool result to the call it answers and keeps the turns in order", () => {
    const chat = conversationOf({ messages: wire })!;
    expect(chat.map((m) => [m.role, m.text])).toEqual([
      ["human", "Refund order 7"],
      ["ai", "On it.\n[image_url]"],
      ["tool", "stray"],
      ["ai", "Done."],
    ]);
    expect(chat[1]!.toolCalls.map((c) => [c.name, c.args, c.result?.text, c.result?.failed ?? false])).toEqual([
      ["refund", { order: 7 }, "refunded", false],
      ["notify", {}, "rejected", true],
    ]);
  });

  it("reads LangChain's serialised messages and { role } objects too", () => {
    const chat = conversationOf({
      messages: [
        { lc: 1, type: "constructor", id: ["langchain_core", "messages", "HumanMessage"], kwargs: { content: "Hi" } },
        { lc: 1, type: "constructor", id: ["langchain_core", "messages", "AIMessageChunk"], kwargs: { content: "Yo" } },
        { role: "assistant", content: "Bye" },
      ],
    });
    expect(chat?.map((m) => [m.role, m.text])).toEqual([
      ["human", "Hi"],
      ["ai", "Yo"],
      ["ai", "Bye"],
    ]);
  });

  it.each([
    [{ messages: [] }],
    [{ messages: ["plain text"] }],
    [{ messages: [{ type: "human" }] }],
    [{ to: "x" }],
    [null],
  ])("is not a conversation: %j", (values) => {
    expect(conversationOf(values)).toBeUndefined();
  });
});
