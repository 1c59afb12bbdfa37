// The inbox's pure pieces: reading payloads, building answers, forms from schemas, diffs,
// timelines, SSE parsing and markdown sanitising.
import { describe, expect, it } from "vitest";
import { createSseParser } from "../src/api/sse";
import type { HumanInterrupt, ThreadState } from "../src/api/types";
import { diffValues } from "../src/domain/diff";
import { shortCheckpoint } from "../src/domain/format";
import {
  allowedActions,
  asHumanInterrupt,
  buildResponse,
  summarizeAnswer,
  titleOf,
} from "../src/domain/human-interrupt";
import { renderMarkdown } from "../src/domain/markdown";
import { answerFrom, fieldsOf, initialValues, issuesByField, schemaFromValue } from "../src/domain/schema-form";
import { buildTimeline } from "../src/domain/timeline";

const hi: HumanInterrupt = {
  action_request: { action: "send_email", args: { to: "a@b.c", subject: "Hi" } },
  config: { allow_accept: true, allow_edit: true, allow_respond: false, allow_ignore: true },
  description: "Send it?",
};

describe("Agent Inbox payloads", () => {
  it.each([
    [hi, true],
    [[hi], true],
    [{ action_request: { args: {} }, config: {} }, false],
    ["Approve?", false],
    [null, false],
  ])("recognises %j as a HumanInterrupt: %s", (value, expected) => {
    expect(!!asHumanInterrupt(value)).toBe(expected);
  });

  it("offers only the actions the config allows", () => {
    expect(allowedActions(hi)).toEqual(["accept", "edit", "ignore"]);
  });

  it.each([
    ["accept", undefined, { type: "accept", args: { action: "send_email", args: { to: "a@b.c", subject: "Hi" } } }],
    [
      "edit",
      { to: "x@y.z", subject: "Hi" },
      { type: "edit", args: { action: "send_email", args: { to: "x@y.z", subject: "Hi" } } },
    ],
    ["respond", "not now", { type: "response", args: "not now" }],
    ["ignore", undefined, { type: "ignore", args: null }],
  ] as const)("builds the %s response", (action, input, expected) => {
    expect(buildResponse(hi, action, input as never)).toEqual(expected);
  });

  it.each([
    [hi, "send_email"],
    [{ question: "Approve this plan?" }, "Approve this plan?"],
    ["Ship it?", "Ship it?"],
    [{ n: 1 }, '{"n":1}'],
  ])("titles %j as %s", (value, title) => expect(titleOf(value)).toBe(title));

  it.each([
    [{ type: "accept", args: {} }, "accept"],
    [{ type: "response", args: "later" }, 'response "later"'],
    [{ type: "edit", args: { action: "x", args: { n: 2 } } }, 'edit {"n":2}'],
    [{ amount: 5 }, '{"amount":5}'],
  ])("summarises the answer %j", (answer, text) => expect(summarizeAnswer(answer)).toBe(text));
});

describe("forms from JSON Schema", () => {
  const schema = {
    type: "object",
    required: ["amount"],
    properties: {
      amount: { type: "number", title: "Amount (EUR)" },
      reason: { type: "string" },
      urgent: { type: "boolean", default: true },
      channel: { enum: ["email", "sms"] },
      meta: { type: "object", properties: { note: { type: "string" } } },
      tags: { type: "array", items: { type: "string" } },
    },
  };
  const fields = fieldsOf(schema);

  it("makes one field per leaf, nested objects flattened by path", () => {
    expect(fields.map((f) => [f.key, f.kind, f.required])).toEqual([
      ["amount", "number", true],
      ["reason", "text", false],
      ["urgent", "boolean", false],
      ["channel", "select", false],
      ["meta.note", "text", false],
      ["tags", "json", false],
    ]);
    expect(fields[0]!.label).toBe("Amount (EUR)");
  });

  it("starts from the schema's defaults", () => {
    expect(initialValues(schema, fields)).toMatchObject({ urgent: true, amount: "" });
  });

  it.each([
    [
      { amount: "12.5", reason: "", urgent: false, channel: "1", "meta.note": "n", tags: '["a"]' },
      { answer: { amount: 12.5, urgent: false, channel: "sms", meta: { note: "n" }, tags: ["a"] } },
    ],
    [{ amount: "abc", urgent: false, tags: "[" }, { errors: { amount: "Enter a number.", tags: "Enter valid JSON." } }],
    [{ amount: "", urgent: true }, { answer: { urgent: true } }],
  ])("reads inputs %j", (values, expected) => {
    expect(answerFrom(fields, values)).toEqual(expected);
  });

  it("answers a non-object schema with a single value", () => {
    const single = fieldsOf({ type: "integer" });
    expect(single.map((f) => f.key)).toEqual([""]);
    expect(answerFrom(single, { "": "3" })).toEqual({ answer: 3 });
  });

  it("puts server issues next to the fields their paths name", () => {
    const issues = [
      { message: "must be at most 100", path: ["amount"] },
      { message: "too short", path: [{ key: "meta" }, { key: "note" }] },
      { message: "bad tag", path: ["tags", 0] },
      { message: "something else" },
    ];
    expect(issuesByField(issues, fields)).toEqual({
      byField: { amount: ["must be at most 100"], "meta.note": ["too short"], tags: ["bad tag"] },
      other: ["something else"],
    });
  });

  it("describes existing args as an editable schema with them as defaults", () => {
    const s = schemaFromValue({ to: "a@b.c", count: 2, ok: false, list: [1] });
    const f = fieldsOf(s);
    expect(f.map((x) => x.kind)).toEqual(["text", "number", "boolean", "json"]);
    expect(initialValues(s, f)).toEqual({ to: "a@b.c", count: "2", ok: false, list: "[\n  1\n]" });
  });
});

describe("state diff", () => {
  it.each([
    [{ a: 1 }, { a: 1 }, []],
    [{ a: 1 }, { a: 2 }, [{ path: "a", kind: "changed", before: 1, after: 2 }]],
    [{ a: 1 }, { a: 1, b: { c: 1 } }, [{ path: "b", kind: "added", after: { c: 1 } }]],
    [{ a: 1, b: 2 }, { a: 1 }, [{ path: "b", kind: "removed", before: 2 }]],
    [
      { l: [1, 2] },
      { l: [1, 3, 4] },
      [
        { path: "l[1]", kind: "changed", before: 2, after: 3 },
        { path: "l[2]", kind: "added", after: 4 },
      ],
    ],
    [{ d: { x: { y: 1 } } }, { d: { x: { y: 2 } } }, [{ path: "d.x.y", kind: "changed", before: 1, after: 2 }]],
    [1, "1", [{ path: "(state)", kind: "changed", before: 1, after: "1" }]],
  ])("%j -> %j", (a, b, expected) => expect(diffValues(a, b)).toEqual(expected));
});

describe("timeline", () => {
  const cp = (id: string) => ({ thread_id: "t", checkpoint_ns: "", checkpoint_id: id });
  const state = (id: string, parent: string | null, step: number, extra: Partial<ThreadState> = {}): ThreadState => ({
    values: { step },
    next: [],
    checkpoint: cp(id),
    parent_checkpoint: parent ? cp(parent) : null,
    metadata: { step, source: "loop" },
    created_at: null,
    tasks: [],
    ...extra,
  });

  it("reads oldest first, with questions, answers and the abandoned branch", () => {
    const history = [
      state("c4", "c1", 1, { metadata: { step: 1, source: "update" } }),
      state("c3", "c2", 2, {
        metadata: {
          step: 2,
          source: "loop",
          resume: [{ by: "alice", at: "2026-01-01T00:00:00Z", answers: { i1: "yes" } }],
          writes: { review: {} },
        },
      }),
      state("c2", "c1", 1, {
        next: ["review"],
        tasks: [{ id: "t1", name: "review", interrupts: [{ id: "i1", value: "Approve?" }] }],
      }),
      state("c1", null, 0),
    ];
    const entries = buildTimeline(history, "c4");
    expect(entries.map((e) => [e.checkpointId, e.current, e.head])).toEqual([
      ["c1", true, false],
      ["c2", false, false],
      ["c3", false, false],
      ["c4", true, true],
    ]);
    expect(entries[1]!.asked).toEqual([{ id: "i1", node: "review", value: "Approve?" }]);
    expect(entries[2]!.answers).toEqual([
      { interruptId: "i1", answer: "yes", by: "alice", at: "2026-01-01T00:00:00Z" },
    ]);
    expect(entries[2]!.wrote).toEqual(["review"]);
  });
});

describe("SSE parsing", () => {
  it("assembles events across chunk boundaries and line endings", () => {
    const parse = createSseParser();
    expect(parse(": hello\nevent: interrupt.created\nda")).toEqual([]);
    expect(parse('ta: {"a":1}\r\n\r\nevent: interrupt.resolved\ndata: x\ndata: y\n\n')).toEqual([
      { event: "interrupt.created", data: '{"a":1}' },
      { event: "interrupt.resolved", data: "x\ny" },
    ]);
    expect(parse("data: plain\n\n")).toEqual([{ event: "message", data: "plain" }]);
  });
});

describe("markdown descriptions", () => {
  it.each([
    ["**bold**", "<strong>bold</strong>"],
    ["<script>alert(1)</script>", "&lt;script&gt;"],
    ['<img src=x onerror="alert(1)">', "&lt;img"],
    ["[x](javascript:alert(1))", "x"],
    ["[docs](https://example.com)", 'href="https://example.com"'],
  ])("%s renders safely", (text, contains) => {
    const html = renderMarkdown(text);
    expect(html).toContain(contains);
    expect(html).not.toMatch(/<script|<img|javascript:/);
  });
});

describe("short ids", () => {
  it.each([
    ["019ad0a1-8f3c-7000-0001-5c31c96b1234", "d0a1-8f3c-7000-0001"],
    ["not-a-uuid", "not-a-uuid"],
  ])("shows the part of checkpoint id %s that differs between neighbours", (id, short) => {
    expect(shortCheckpoint(id)).toBe(short);
  });
});
