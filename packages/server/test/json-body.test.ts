/**
 * A large JSON response is written in parts (wire/json-body.ts): its bytes must be exactly those
 * of the one-string serialisation (`wireJson`), whatever the value holds.
 */
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonBody } from "../dist/wire/json-body.js";
import { toWire, wireJson } from "../dist/wire/messages.js";
import { type TestServer, testServer } from "./helpers.js";

const PROSE = "The reviewer reads the proposal and answers with a considered opinion. ";

/** A deterministic stream of numbers in [0, 1). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Everything JSON.stringify treats in its own way, at every depth. */
function leaf(next: () => number, depth: number): unknown {
  const pick = Math.floor(next() * 22);
  switch (pick) {
    case 0:
      return undefined;
    case 1:
      return () => "a function";
    case 2:
      return Symbol("s");
    case 3:
      return new Date(Date.UTC(2026, 11, Math.floor(next() * 28) + 1));
    case 4:
      return { toJSON: (key: string) => `written under ${JSON.stringify(key)}` };
    case 5:
      return { toJSON: () => undefined };
    case 6:
      return new String("boxed");
    case 7:
      return new Number(42.5);
    case 8:
      return new Map([["a", 1]]);
    case 9:
      return {
        lc: 1,
        type: "constructor",
        id: ["langchain_core", "messages", "AIMessage"],
        kwargs: { content: PROSE },
      };
    case 10:
      return new HumanMessage({ content: PROSE, id: `h-${depth}` });
    case 11:
      return "ünïcödé 🎉 \u2028 \ud800 lone";
    case 12:
      return Number.NaN;
    case 13:
      return -0;
    case 14:
      return null;
    case 15:
      return [undefined, () => 1, Symbol("t")];
    case 16:
      return { "": 1, __proto__x: 2, "1": "numeric key first", b: undefined };
    default:
      return depth > 5 ? PROSE.repeat(1 + Math.floor(next() * 20)) : tree(next, depth + 1);
  }
}

function tree(next: () => number, depth: number): unknown {
  const size = 1 + Math.floor(next() * (depth < 3 ? 16 : 6));
  if (next() < 0.5) return Array.from({ length: size }, () => leaf(next, depth));
  const record: Record<string, unknown> = {};
  for (let i = 0; i < size; i++)
    record[next() < 0.1 ? String(i) : `k${i}-${Math.floor(next() * 100)}`] = leaf(next, depth);
  return record;
}

const text = (body: string | Buffer) => (typeof body === "string" ? body : body.toString("utf8"));

/** The text of `value` with its messages in wire shape, as LangChain's own `toJSON` writes them. */
const reference = (value: unknown) => JSON.stringify(toWire(value));

class Holder {
  constructor(readonly message: unknown) {}
}

describe("wireJson", () => {
  it("writes messages as their toJSON and the replacer would, wherever they are", () => {
    const message = new AIMessage({ content: PROSE, id: "a1", tool_calls: [{ name: "t", args: {}, id: "c1" }] });
    let deep: unknown = { message };
    for (let i = 0; i < 70; i++) deep = [deep];
    const values = [
      { message },
      [message, { nested: [message] }],
      new Holder(message),
      JSON.parse(`{"__proto__": ${JSON.stringify(message.toJSON())}, "other": 1}`),
      Object.defineProperty({ plain: 1 }, "__proto__", { value: message, enumerable: true }),
      deep,
      { toJSON: () => ({ message }) },
    ];
    for (const value of values) expect(wireJson(value)).toBe(reference(value));
    for (let seed = 100; seed < 400; seed++) {
      const value = tree(random(seed), 1);
      expect(wireJson(value)).toBe(reference(value));
    }
  });
});

describe("jsonBody", () => {
  it("writes a small value as one string, as wireJson does", () => {
    const value = { rounds: 3, answers: ["a", "b"], message: new AIMessage({ content: "hi", id: "m1" }) };
    expect(jsonBody(value)).toBe(wireJson(value));
  });

  it("writes a large value as bytes equal to wireJson's text, for every kind of member", () => {
    let large = 0;
    for (let seed = 1; seed <= 30; seed++) {
      const next = random(seed);
      const value = { messages: Array.from({ length: 80 }, () => tree(next, 1)), padding: PROSE.repeat(1400) };
      const body = jsonBody(value);
      if (typeof body !== "string") large++;
      expect(text(body)).toBe(wireJson(value));
      expect(text(body)).toBe(reference(value));
    }
    expect(large).toBe(30);
  });

  it("writes a search listing of large threads, a list with holes, and live messages as wireJson does", () => {
    const values = { answers: Array.from({ length: 150 }, (_, i) => `${i}: ${PROSE.repeat(12)}`) };
    const listing = Array.from({ length: 3 }, (_, i) => ({ thread_id: `t${i}`, values, interrupts: {} }));
    const holes: unknown[] = [1, undefined, 3, ...Array.from({ length: 3000 }, (_, i) => ({ i, text: PROSE }))];
    holes[5000] = "after a gap"; // 3003-4999 are holes
    const agent = {
      messages: Array.from({ length: 300 }, (_, i) =>
        i % 2
          ? new AIMessage({ content: PROSE.repeat(12), id: `a${i}` })
          : new HumanMessage({ content: PROSE, id: `h${i}` }),
      ),
    };
    // A message in LangChain's form, itself large: converted whole, not opened as a plain object.
    const longMessage = {
      note: PROSE,
      message: {
        lc: 1,
        type: "constructor",
        id: ["langchain_core", "messages", "AIMessage"],
        kwargs: { content: PROSE.repeat(2000) },
      },
    };
    // A boxed string is written as its string, not as its characters' keys.
    const boxed = { note: PROSE, text: new String(PROSE.repeat(2000)) };
    for (const value of [listing, holes, agent, longMessage, boxed]) {
      const body = jsonBody(value);
      expect(typeof body).toBe("object");
      expect(text(body)).toBe(wireJson(value));
    }
    // The wire shape, not LangChain's: the messages were converted.
    expect(JSON.parse(text(jsonBody(agent))).messages[1]).toMatchObject({ type: "ai", id: "a1" });
  });

  it("fails as JSON.stringify does on a cycle or a BigInt inside a large value", () => {
    const cyclic: Record<string, unknown> = { padding: PROSE.repeat(2000), nested: { list: [] as unknown[] } };
    (cyclic.nested as { list: unknown[] }).list.push(cyclic.nested);
    expect(() => jsonBody(cyclic)).toThrow(TypeError);
    expect(() => jsonBody({ padding: PROSE.repeat(2000), n: [1n] })).toThrow(TypeError);
  });
});

describe("a large state over HTTP", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await testServer();
  }, 60_000);
  afterAll(async () => {
    await server?.dispose();
  });

  it("is answered whole, its Content-Length in bytes, by runs/wait, the thread and a search", async () => {
    // 200 kB of text with characters of two to four bytes in UTF-8.
    const detail = "ünïcödé 🎉 reviewer's context ".repeat(7000);
    const client = server.client();
    const thread = await client.threads.create({ metadata: { large: "yes" } });
    const state = (await client.runs.wait(thread.thread_id, "loop", { input: { rounds: 2, detail } })) as any;
    expect(state).toMatchObject({ rounds: 2, detail, answers: [] });
    const reads = [
      [`/threads/${thread.thread_id}`, "GET", undefined],
      ["/threads/search", "POST", JSON.stringify({ metadata: { large: "yes" } })],
    ] as const;
    for (const [path, method, body] of reads) {
      const response = await fetch(`${server.url}${path}`, {
        method,
        body,
        headers: { "content-type": "application/json" },
      });
      const bytes = Buffer.from(await response.arrayBuffer());
      expect(response.headers.get("content-type")).toBe("application/json");
      expect(Number(response.headers.get("content-length"))).toBe(bytes.length);
      const read = JSON.parse(bytes.toString("utf8"));
      expect((Array.isArray(read) ? read[0] : read).values).toEqual({ rounds: 2, detail, answers: [] });
    }
  });

  it.each([
    ["a state written in parts", 7000],
    ["medium states, whose events a replay sends in one write of more than 64 kB", 1000],
  ])("is streamed whole in `values` events: %s", async (_, repeat) => {
    const detail = "ünïcödé 🎉 reviewer's context ".repeat(repeat);
    const client = server.client();
    const thread = await client.threads.create();
    const events: Array<{ event: string; data: any }> = [];
    for await (const part of client.runs.stream(thread.thread_id, "loop", {
      input: { rounds: 2, detail },
      streamMode: ["values", "updates"],
    }))
      events.push(part);
    // The states, not the pause's own `values` event (`__interrupt__`).
    const values = events.filter((e) => e.event === "values" && !("__interrupt__" in e.data));
    expect(values.length).toBeGreaterThanOrEqual(1);
    for (const e of values) expect(e.data).toMatchObject({ rounds: 2, detail });
    expect(events.some((e) => e.event === "updates")).toBe(true);
    // The stream can be joined again from its log: the same events, read back.
    const runs = await client.runs.list(thread.thread_id);
    const again: Array<{ event: string; data: any }> = [];
    for await (const part of client.runs.joinStream(thread.thread_id, runs[0]!.run_id)) again.push(part);
    expect(again.filter((e) => e.event === "values" && !("__interrupt__" in e.data))).toEqual(values);
  });
});
