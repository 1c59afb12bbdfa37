import { registerSerializable, SerializationError } from "@interlude/core";
import { Document } from "@langchain/core/documents";
import { AIMessage, AIMessageChunk, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { useHarness } from "./context.js";
import { Money, ThreadWriter } from "./fixtures.js";
import type { MakeSaver } from "./harness.js";

registerSerializable("conformance.Money", Money);

/** Every kind of value the serializer promises to give back exactly. */
function zoo() {
  return {
    date: new Date("2024-02-29T12:34:56.789Z"),
    map: new Map<unknown, unknown>([
      ["a", 1],
      [2, { nested: new Set([1, "two"]) }],
    ]),
    set: new Set([1, "x", null]),
    big: 123456789012345678901234567890n,
    undef: undefined,
    arrayWithUndefined: [1, undefined, 3],
    bytes: new Uint8Array([0, 1, 254, 255]),
    buffer: Buffer.from("héllo"),
    falsy: { f: false, zero: 0, empty: "", nil: null },
    numbers: [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0],
    money: { nested: { price: new Money(1999n, "EUR") } },
    tagLike: { __t: "d", v: 0 },
  };
}

function expectZoo(value: unknown): void {
  const v = value as ReturnType<typeof zoo>;
  expect(v).toEqual(zoo());
  expect(v.date).toBeInstanceOf(Date);
  expect(v.date.toISOString()).toBe("2024-02-29T12:34:56.789Z");
  expect(v.map).toBeInstanceOf(Map);
  expect((v.map.get(2) as { nested: Set<unknown> }).nested).toBeInstanceOf(Set);
  expect(typeof v.big).toBe("bigint");
  expect(Object.hasOwn(v, "undef")).toBe(true);
  expect(v.arrayWithUndefined).toHaveLength(3);
  expect(Buffer.isBuffer(v.bytes)).toBe(false);
  expect(v.bytes).toBeInstanceOf(Uint8Array);
  expect(Buffer.isBuffer(v.buffer)).toBe(true);
  expect(Number.isNaN(v.numbers[0])).toBe(true);
  expect(Object.is(v.numbers[3], -0)).toBe(true);
  expect(v.money.nested.price).toBeInstanceOf(Money);
  expect(v.money.nested.price.format()).toBe("1999 EUR");
  expect(v.tagLike).toEqual({ __t: "d", v: 0 });
}

export function valuesSuite(make: MakeSaver): void {
  describe("values", () => {
    const h = useHarness(make);

    it("gives back every kind of value exactly, in channels, metadata and writes", async () => {
      const thread = new ThreadWriter(h.current.saver);
      const config = await thread.write(
        { zoo: zoo(), flag: false, zero: 0, empty: "", nothing: undefined },
        { extra: zoo() },
      );
      await h.current.saver.putWrites(config, [["zoo", zoo()]], "task-1");
      const tuple = await h.current.saver.getTuple(config);
      const values = tuple!.checkpoint.channel_values;
      expectZoo(values.zoo);
      expect(values.flag).toBe(false);
      expect(values.zero).toBe(0);
      expect(values.empty).toBe("");
      expect(Object.hasOwn(values, "nothing")).toBe(true);
      expectZoo(tuple!.metadata.extra);
      expectZoo(tuple!.pendingWrites[0]![2]);
    });

    it("gives back LangChain messages and documents as instances of the user's classes", async () => {
      const thread = new ThreadWriter(h.current.saver);
      const ai = new AIMessage({
        content: "",
        id: "a1",
        tool_calls: [{ name: "t", args: { q: 1 }, id: "c1", type: "tool_call" }],
      });
      const first = [new HumanMessage({ content: "hi", id: "h1" }), ai];
      await thread.write({ messages: first });
      // A longer list again: savers that store list growth as deltas store messages that way too.
      const messages = [...first, new ToolMessage({ content: "done", tool_call_id: "c1", id: "t1", status: "error" })];
      const doc = new Document({ pageContent: "page", metadata: { n: 1 } });
      const config = await thread.write({ messages, doc }, { last: ai });
      await h.current.saver.putWrites(
        config,
        [["messages", [new AIMessageChunk({ content: "tok", id: "k1" })]]],
        "task-1",
      );
      const tuple = (await h.current.saver.getTuple(config))!;
      const stored = tuple.checkpoint.channel_values.messages as unknown[];
      expect(stored.map((m) => (m as HumanMessage).constructor)).toEqual([HumanMessage, AIMessage, ToolMessage]);
      expect((stored[1] as AIMessage).tool_calls).toEqual(ai.tool_calls);
      expect((stored[2] as ToolMessage).status).toBe("error");
      expect(stored.map((m) => (m as HumanMessage).id)).toEqual(["h1", "a1", "t1"]);
      expect(tuple.checkpoint.channel_values.doc).toBeInstanceOf(Document);
      expect(tuple.metadata.last).toBeInstanceOf(AIMessage);
      const [written] = tuple.pendingWrites[0]![2] as unknown[];
      expect(written).toBeInstanceOf(AIMessageChunk);
    });

    it("refuses a value it cannot store, naming where it is, and writes nothing", async () => {
      class Client {
        socket = 1;
      }
      const thread = new ThreadWriter(h.current.saver);
      const good = await thread.write({ items: [1] });
      const items = [1, 2, 3, { client: new Client() }];
      const failure = await thread.write({ items }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(SerializationError);
      expect((failure as SerializationError).code).toBe("SERIALIZATION");
      expect((failure as Error).message).toContain("state.items[3].client");
      expect((failure as Error).message).toContain("Client");
      const fn = await h.current.saver
        .putWrites(good, [["cb", { onDone: () => 1 }]], "t")
        .catch((error: unknown) => error);
      expect(fn).toBeInstanceOf(SerializationError);
      expect((fn as Error).message).toContain("writes.cb.onDone");
      const tuple = await h.current.saver.getTuple({ configurable: { thread_id: thread.threadId } });
      expect(tuple?.checkpoint.id).toBe(good.configurable?.checkpoint_id);
      expect(tuple?.pendingWrites).toEqual([]);
    });

    it("stores a 10 MB state", async () => {
      const thread = new ThreadWriter(h.current.saver);
      const text = "x".repeat(5_000_000);
      const rows = Array.from({ length: 50_000 }, (_, i) => ({ i, label: `row ${i} ${"y".repeat(80)}` }));
      const config = await thread.write({ text, rows });
      const values = (await h.current.saver.getTuple(config))!.checkpoint.channel_values;
      expect((values.text as string).length).toBe(5_000_000);
      expect(values.rows).toEqual(rows);
    }, 60_000);
  });
}
