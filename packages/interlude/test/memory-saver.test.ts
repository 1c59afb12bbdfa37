import { describeSaverConformance } from "@interlude/checkpoint-conformance";
import {
  type CheckpointMetadata,
  InMemorySaver,
  InvalidSaverOptionError,
  JsonSerializer,
  MemorySaver,
  newCheckpointId,
  type RunnableConfig,
  registerSerializable,
  SerializationError,
} from "@interlude/core";
import { describe, expect, it } from "vitest";

describeSaverConformance(
  "MemorySaver",
  async (options) => {
    const saver = new MemorySaver({ ttlMs: options?.ttlMs });
    return { saver, close: () => saver.close() };
  },
  { sharedStorage: false, breakable: false },
);

// Every thread but the one in use frozen: each call thaws the thread it touches.
describeSaverConformance(
  "MemorySaver, one live thread",
  async (options) => {
    const saver = new MemorySaver({ ttlMs: options?.ttlMs, liveThreads: 1 });
    return { saver, close: () => saver.close() };
  },
  { sharedStorage: false, breakable: false },
);

/** A checkpoint with no channels, a new id. */
function emptyCheckpoint() {
  return {
    v: 1,
    id: newCheckpointId(),
    ts: "2024-01-01T00:00:00.000Z",
    channel_values: {},
    channel_versions: {},
    versions_seen: {},
  };
}

describe("MemorySaver", () => {
  it("refuses an option it does not take, and a serializer where its options go, naming what it takes", () => {
    expect(() => new MemorySaver({ tll: 5 } as never)).toThrow(
      expect.objectContaining({ code: "INVALID_SAVER_OPTION", message: expect.stringMatching(/tll .*ttlMs/) }),
    );
    expect(() => new MemorySaver(new JsonSerializer() as never)).toThrow(/as \{ serde \}/);
    expect(() => new MemorySaver({ ttlMs: undefined, liveThreads: 10, serde: new JsonSerializer() })).not.toThrow();
  });

  it("keeps a task's first write in a slot and replaces its reserved ones, among the many writes of a fan-out step", async () => {
    const saver = new MemorySaver();
    const config = await saver.put(
      { configurable: { thread_id: "fan" } },
      emptyCheckpoint(),
      { source: "loop", step: 1, parents: {} },
      {},
    );
    // 40 tasks: past the length from which the checkpoint's write slots are indexed.
    for (let task = 0; task < 40; task++)
      await saver.putWrites(config, [["results", task]], `task-${String(task).padStart(2, "0")}`);
    // Retried: the first write of each slot stays; a reserved channel replaces the task's earlier one.
    for (const task of [3, 25, 39]) {
      const taskId = `task-${String(task).padStart(2, "0")}`;
      await saver.putWrites(config, [["results", `retried ${task}`]], taskId);
      await saver.putWrites(config, [["__interrupt__", [{ id: "first" }]]], taskId);
      await saver.putWrites(config, [["__interrupt__", [{ id: "second" }]]], taskId);
    }
    await saver.putWrites(config, [["results", "late"]], "task-40");
    const writes = (await saver.getTuple(config))!.pendingWrites!;
    expect(writes.filter(([, channel]) => channel === "results").map(([, , value]) => value)).toEqual([
      ...Array.from({ length: 40 }, (_, task) => task),
      "late",
    ]);
    expect(writes.filter(([, channel]) => channel === "__interrupt__")).toEqual(
      ["task-03", "task-25", "task-39"].map((taskId) => [taskId, "__interrupt__", [{ id: "second" }]]),
    );
  });

  it("reads a frozen thread back as it read live: records, odd metadata, writes, subgraphs, deltas", async () => {
    const fill = async (saver: MemorySaver) => {
      for (const thread of ["a", "b", "c"]) {
        let config: RunnableConfig = { configurable: { thread_id: thread } };
        const list: string[] = [];
        for (let step = 0; step < 4; step++) {
          list.push(`${thread}${step}`);
          const metadata: CheckpointMetadata =
            step === 2
              ? {
                  source: "loop",
                  step,
                  resume: [{ at: "2024-01-01T00:00:02.000Z", answers: { x: 1 } }],
                  parents: { "": "p" },
                }
              : { source: "loop", step, parents: {} };
          config = await saver.put(
            config,
            {
              v: 1,
              id: `0000000${step}-${thread}`,
              ts: `2024-01-01T00:00:0${step}.000Z`,
              channel_values: { list, n: step },
              channel_versions: step === 3 ? { list: step + 1, ["__proto__"]: 1.5 } : { list: step + 1, n: step + 0.5 },
              versions_seen: step ? { node: { list: step } } : {},
            },
            metadata,
            step === 3 ? { list: step + 1 } : { list: step + 1, n: step + 0.5 },
          );
          await saver.putWrites(
            config,
            [
              ["n", step],
              ["__interrupt__", [{ id: "q" }]],
            ],
            `task-${step}`,
          );
          await saver.putWrites(config, [["__interrupt__", [{ id: "replaced" }]]], `task-${step}`);
        }
        await saver.put(
          { configurable: { thread_id: thread, checkpoint_ns: "sub:1" } },
          {
            v: 1,
            id: `00000009-${thread}`,
            ts: "2024-01-01T00:00:09.000Z",
            channel_values: { s: "x" },
            channel_versions: { s: 1 },
            versions_seen: {},
          },
          { source: "input", step: -1, parents: { "": `00000003-${thread}` } },
          { s: 1 },
        );
        await saver.putWrites({ configurable: { thread_id: thread, checkpoint_id: "not-stored" } }, [["n", 1]], "t");
      }
    };
    const everything = async (saver: MemorySaver) => {
      const out = [];
      for (const thread of ["a", "b", "c"]) {
        for (const ns of ["", "sub:1"])
          for await (const tuple of saver.list({ configurable: { thread_id: thread, checkpoint_ns: ns } }))
            out.push(tuple);
        out.push(await saver.getTuple({ configurable: { thread_id: thread } }));
      }
      return out;
    };
    const live = new MemorySaver();
    const frozen = new MemorySaver({ liveThreads: 1 });
    await fill(live);
    await fill(frozen);
    const expected = await everything(live);
    expect(expected).toHaveLength(18);
    expect(await everything(frozen)).toEqual(expected);
    // Written to once thawed, then frozen again.
    await frozen.put(
      { configurable: { thread_id: "a", checkpoint_id: "00000003-a" } },
      {
        v: 1,
        id: "00000004-a",
        ts: "2024-01-01T00:00:04.000Z",
        channel_values: { n: 9 },
        channel_versions: { n: 9 },
        versions_seen: {},
      },
      { source: "update", step: 4, parents: {} },
      { n: 9 },
    );
    await frozen.getTuple({ configurable: { thread_id: "b" } });
    const tuple = await frozen.getTuple({ configurable: { thread_id: "a" } });
    expect(tuple?.checkpoint.channel_values).toEqual({ n: 9 });
    expect(tuple?.parentConfig?.configurable?.checkpoint_id).toBe("00000003-a");
  });

  it("keeps a record of the common form unaffected by later changes, and odd versions exactly", async () => {
    const saver = new MemorySaver();
    const versions: Record<string, number> = { a: 1.5, b: 2 };
    const seen: Record<string, Record<string, number>> = { node: { a: 1 } };
    const put = (id: string, channel_versions: Record<string, number>) =>
      saver.put(
        { configurable: { thread_id: "t" } },
        { v: 1, id, ts: "2024-01-01T00:00:00.000Z", channel_values: {}, channel_versions, versions_seen: seen },
        { source: "loop", step: 1, parents: {} },
        {},
      );
    const config = await put("00000001", versions);
    versions.a = 9;
    seen.node!.a = 9;
    seen.other = { b: 1 };
    const first = await saver.getTuple(config);
    expect(first?.checkpoint).toMatchObject({ channel_versions: { a: 1.5, b: 2 }, versions_seen: { node: { a: 1 } } });
    first!.checkpoint.versions_seen.node!.a = 7;
    (first!.metadata.parents as Record<string, string>)[""] = "changed";
    const again = await saver.getTuple(config);
    expect(again?.checkpoint.versions_seen).toEqual({ node: { a: 1 } });
    expect(again?.metadata).toEqual({ source: "loop", step: 1, parents: {} });
    // Versions JSON cannot write exactly are kept another way, and read back as given.
    const odd = await saver.getTuple(await put("00000002", { a: -0, b: Number.NaN }));
    expect(Object.is(odd?.checkpoint.channel_versions.a, -0) && Number.isNaN(odd?.checkpoint.channel_versions.b)).toBe(
      true,
    );
  });

  it("keeps live a thread whose versions JSON cannot hold: its values read back as before", async () => {
    const saver = new MemorySaver({ liveThreads: 1 });
    const put = (thread: string, version: number) =>
      saver.put(
        { configurable: { thread_id: thread } },
        {
          v: 1,
          id: "00000001",
          ts: "2024-01-01T00:00:00.000Z",
          channel_values: { x: thread },
          channel_versions: { x: version },
          versions_seen: {},
        },
        { source: "loop", step: 1, parents: {} },
        { x: version },
      );
    await put("infinite", Number.POSITIVE_INFINITY);
    await put("other", 1); // the first thread would be frozen now
    const tuple = await saver.getTuple({ configurable: { thread_id: "infinite" } });
    expect(tuple?.checkpoint.channel_versions).toEqual({ x: Number.POSITIVE_INFINITY });
    expect(tuple?.checkpoint.channel_values).toEqual({ x: "infinite" });
  });

  it("refuses a liveThreads that is not a whole number of at least 1", () => {
    for (const liveThreads of [0, 2.5, Number.NaN, -1])
      expect(() => new MemorySaver({ liveThreads })).toThrow(InvalidSaverOptionError);
    expect(() => new MemorySaver({ liveThreads: 0 })).toThrow(/liveThreads is 0; it must be a whole number/);
  });

  it("refuses a liveThreads it could not keep: under a custom serde no thread is frozen", () => {
    const viaJson = new JsonSerializer();
    const serde = {
      dumps: (value: unknown) => viaJson.dumps(value),
      loads: (data: string | Uint8Array) => viaJson.loads(data),
    };
    expect(() => new MemorySaver({ serde, liveThreads: 10 })).toThrow(
      /liveThreads is 10; it must be left unset with a custom serde/,
    );
    expect(new MemorySaver({ serde })).toBeInstanceOf(MemorySaver);
    expect(new MemorySaver({ serde: viaJson, liveThreads: 10 })).toBeInstanceOf(MemorySaver);
  });

  it("is also exported under LangGraph's name", () => {
    expect(new InMemorySaver()).toBeInstanceOf(MemorySaver);
  });

  it("keeps the newest of 2,000 one-channel steps readable, values whole", async () => {
    const saver = new MemorySaver();
    let config: RunnableConfig = { configurable: { thread_id: "many" } };
    const values: Record<string, unknown> = { a: 0, b: "unchanged", c: [1, 2, 3] };
    const versions: Record<string, number> = { a: 1, b: 1, c: 1 };
    for (let i = 0; i < 2_000; i++) {
      values.a = i;
      versions.a = i + 2;
      config = await saver.put(
        config,
        {
          v: 1,
          id: newCheckpointId(),
          ts: "2024-01-01T00:00:00.000Z",
          channel_values: values,
          channel_versions: versions,
          versions_seen: { n: { a: i } },
        },
        { source: "loop", step: i, parents: {} },
        // The first step stores every channel; later ones only the one that changed.
        i === 0 ? { ...versions } : { a: i + 2 },
      );
    }
    const tuple = await saver.getTuple(config);
    expect(tuple?.checkpoint.channel_values).toEqual({ a: 1_999, b: "unchanged", c: [1, 2, 3] });
    expect(tuple?.metadata).toMatchObject({ source: "loop", step: 1_999 });
  });
});

describe("MemorySaver records", () => {
  /** A serde that is not a JsonSerializer, so this saver serialises every record and metadata. */
  const viaJson = new JsonSerializer();
  const serialising = () =>
    new MemorySaver({
      serde: { dumps: (value, path) => viaJson.dumps(value, path), loads: (data) => viaJson.loads(data) },
    });

  it("reads back a record and metadata exactly as serialising them would, unaffected by later changes", async () => {
    const nullProto = () => Object.assign(Object.create(null) as Record<string, unknown>, { a: 1 });
    // Plain (kept as a copy), holding a Date, and nested deeper than a copy goes (both serialised).
    const cases: Array<() => Record<string, unknown>> = [
      () => ({
        odd: {
          undef: undefined,
          negZero: -0,
          nan: Number.NaN,
          big: 12n,
          holes: [1, undefined, 3],
          nullProto: nullProto(),
          __t: "d",
        },
        list: [{ a: [1] }],
      }),
      () => ({ when: new Date(0), list: [{ a: [1] }] }),
      () => ({ deep: { l1: { l2: { l3: { l4: { l5: { l6: 1 } } } } } }, list: [{ a: [1] }] }),
    ];
    const id = newCheckpointId();
    const readBack = async (saver: MemorySaver, extra: Record<string, unknown>) => {
      const versions = { a: 1.25, ["__proto__"]: 2.5 };
      const seen = { node: { a: 1.25 } };
      const written = { source: "loop" as const, step: 3, parents: { "": "parent-id" }, ...extra };
      const config = await saver.put(
        { configurable: { thread_id: "t" } },
        {
          v: 1,
          id,
          ts: "2024-01-01T00:00:00.000Z",
          channel_values: { a: 1 },
          channel_versions: versions,
          versions_seen: seen,
        },
        written,
        { a: 1.25 },
      );
      versions.a = 9;
      seen.node.a = 9;
      (extra.list as Array<{ a: number[] }>)[0]!.a.push(2);
      const first = await saver.getTuple(config);
      first!.checkpoint.channel_versions.a = 7;
      (first!.metadata.parents as Record<string, string>)[""] = "changed";
      (first!.metadata.list as Array<{ a: number[] }>)[0]!.a.push(3);
      return saver.getTuple(config);
    };
    for (const extra of cases) {
      const copied = await readBack(new MemorySaver(), extra());
      const serialised = await readBack(serialising(), extra());
      expect(copied!.checkpoint).toEqual(serialised!.checkpoint);
      expect(copied!.metadata).toEqual(serialised!.metadata);
      expect(copied!.checkpoint.channel_versions).toEqual({ a: 1.25, ["__proto__"]: 2.5 });
      expect(Object.hasOwn(copied!.checkpoint.channel_versions, "__proto__")).toBe(true);
      expect(copied!.metadata.parents).toEqual({ "": "parent-id" });
      expect(copied!.metadata.list).toEqual([{ a: [1] }]);
    }
    const odd = (await readBack(new MemorySaver(), cases[0]!()))!.metadata.odd as Record<string, unknown>;
    expect(Object.is(odd.negZero, -0) && Number.isNaN(odd.nan) && odd.big === 12n && Object.hasOwn(odd, "undef")).toBe(
      true,
    );
    expect(odd.holes).toEqual([1, undefined, 3]);
    expect(1 in (odd.holes as unknown[])).toBe(true);
    expect(Object.getPrototypeOf(odd.nullProto)).toBe(Object.prototype);
    expect((await readBack(new MemorySaver(), cases[1]!()))!.metadata.when).toBeInstanceOf(Date);
  });

  it("reads back each record's own keys when their key sequences look alike: same hash, many names, frozen", async () => {
    // One live thread: reading a thread thaws it, putting another freezes it (layouts by index or inline).
    const saver = new MemorySaver({ liveThreads: 1 });
    const put = async (thread: string, channels: string[], seen: Record<string, string[]> = {}) => {
      const checkpoint = {
        ...emptyCheckpoint(),
        channel_versions: Object.fromEntries(channels.map((c, i) => [c, i + 1])),
        versions_seen: Object.fromEntries(
          Object.entries(seen).map(([node, keys]) => [node, Object.fromEntries(keys.map((c, i) => [c, i + 0.5]))]),
        ),
      };
      const config = await saver.put(
        { configurable: { thread_id: thread } },
        checkpoint,
        { source: "loop", step: 0, parents: {} },
        {},
      );
      return { config, checkpoint };
    };
    // Names are numbered as first met (x1 -> 1, ..., x32 -> 32): [x1, x32] and [x2, x1] hash alike (31 + 32 = 62 + 1).
    const numbered = Array.from({ length: 32 }, (_, i) => `x${i + 1}`);
    const puts = [await put("numbering", numbered)];
    puts.push(await put("a", ["x1", "x32"]), await put("b", ["x2", "x1"]));
    puts.push(await put("c", ["x1"], { n: ["x32"] }), await put("d", ["x1"], { x32: [] }));
    // More names than a saver numbers: those records get layouts of their own.
    for (let i = 0; i < 900; i++) {
      const names = Array.from({ length: 100 }, (_, j) => `many-${i}-${j}`);
      const put_ = await put(`many-${i}`, names.slice(0, 90), { node: names.slice(90) });
      if (i % 100 === 0 || i === 899) puts.push(put_);
    }
    for (const { config, checkpoint } of puts) {
      const read = await saver.getTuple(config);
      expect(Object.entries(read!.checkpoint.channel_versions)).toEqual(Object.entries(checkpoint.channel_versions));
      expect(read!.checkpoint.versions_seen).toEqual(checkpoint.versions_seen);
    }
  });

  it("reads back a pending write exactly as serialising it would, live and frozen, unaffected by later changes", async () => {
    const values = (): unknown[] => [
      {
        odd: { undef: undefined, negZero: -0, nan: Number.NaN, big: 12n, holes: [1, undefined, 3], __t: "d" },
        list: [{ a: [1] }],
      },
      { plain: { list: [{ a: [1] }], n: 1.5, s: "x" } },
      [{ when: new Date(0) }],
      { deep: { l1: { l2: { l3: { l4: { l5: { l6: 1 } } } } } } },
      "text",
      7,
      null,
    ];
    const readBack = async (saver: MemorySaver) => {
      const written = values();
      const config = await saver.put(
        { configurable: { thread_id: "t" } },
        emptyCheckpoint(),
        { source: "loop", step: 0, parents: {} },
        {},
      );
      await saver.putWrites(
        config,
        written.map((value, i) => [`c${i}`, value]),
        "task",
      );
      (written[1] as { plain: { list: Array<{ a: number[] }> } }).plain.list[0]!.a.push(2);
      // Another thread: with one live thread, this freezes "t", and the reads below thaw it.
      await saver.put(
        { configurable: { thread_id: "other" } },
        emptyCheckpoint(),
        { source: "loop", step: 0, parents: {} },
        {},
      );
      const first = (await saver.getTuple(config))!.pendingWrites!;
      (first[1]![2] as { plain: { n: number } }).plain.n = 9;
      return (await saver.getTuple(config))!.pendingWrites!;
    };
    const serialised = await readBack(serialising());
    for (const saver of [new MemorySaver(), new MemorySaver({ liveThreads: 1 })]) {
      const read = await readBack(saver);
      expect(read).toEqual(serialised);
      expect(read[1]![2]).toEqual({ plain: { list: [{ a: [1] }], n: 1.5, s: "x" } });
      const odd = (read[0]![2] as { odd: Record<string, unknown> }).odd;
      expect(
        Object.is(odd.negZero, -0) && Number.isNaN(odd.nan) && odd.big === 12n && Object.hasOwn(odd, "undef"),
      ).toBe(true);
      expect(1 in (odd.holes as unknown[])).toBe(true);
      expect((read[2]![2] as Array<{ when: unknown }>)[0]!.when).toBeInstanceOf(Date);
    }
    const saver = new MemorySaver();
    const config = await saver.put(
      { configurable: { thread_id: "t" } },
      emptyCheckpoint(),
      { source: "loop", step: 0, parents: {} },
      {},
    );
    await expect(saver.putWrites(config, [["c", { f: () => 1 }]], "task")).rejects.toThrow(/writes\.c/);
    await expect(saver.putWrites(config, [["c", { f: () => 1 }]], "task")).rejects.toThrow(SerializationError);
  });

  it("refuses a record or metadata it cannot store, as serialising does", async () => {
    const saver = new MemorySaver();
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const checkpoint = emptyCheckpoint();
    await expect(
      saver.put({ configurable: { thread_id: "t" } }, checkpoint, { source: "loop", step: 0, parents: {}, cyclic }, {}),
    ).rejects.toThrow(/circular reference at metadata\.cyclic\.self/);
    await expect(
      saver.put(
        { configurable: { thread_id: "t" } },
        checkpoint,
        { source: "loop", step: 0, parents: {}, f: () => 1 },
        {},
      ),
    ).rejects.toThrow(SerializationError);
    expect(await saver.getTuple({ configurable: { thread_id: "t" } })).toBeUndefined();
  });
});

describe("JsonSerializer", () => {
  const serde = new JsonSerializer();

  it("writes plain data as plain JSON", () => {
    const value = { a: [1, "x", { b: null, c: true }] };
    expect(serde.dumps(value)).toBe(JSON.stringify(value));
  });

  it("round-trips registered classes with custom toJSON/fromJSON", () => {
    class Point {
      constructor(
        readonly x: number,
        readonly y: number,
      ) {}
    }
    registerSerializable("test.Point", Point, {
      toJSON: (p: Point) => [p.x, p.y],
      fromJSON: ([x, y]: [number, number]) => new Point(x, y),
    });
    const back = serde.loads(serde.dumps({ p: new Point(1, 2) })) as { p: Point };
    expect(back.p).toBeInstanceOf(Point);
    expect(back.p).toEqual(new Point(1, 2));
  });

  it("round-trips errors and refuses cycles, symbols and functions with a path", () => {
    const error = Object.assign(new Error("boom"), { code: "E_BOOM" });
    const back = serde.loads(serde.dumps(error)) as Error & { code: string };
    expect(back).toBeInstanceOf(Error);
    expect([back.message, back.code]).toEqual(["boom", "E_BOOM"]);
    const cyclic: Record<string, unknown> = { a: {} };
    (cyclic.a as Record<string, unknown>).self = cyclic;
    expect(() => serde.dumps(cyclic, "state")).toThrow(/circular reference at state\.a\.self/);
    expect(() => serde.dumps({ s: Symbol("x") }, "state")).toThrow(SerializationError);
    expect(() => serde.dumps({ "a b": [() => 1] }, "state")).toThrow(/state\["a b"\]\[0\]/);
  });

  it("round-trips a small plain object to what JSON would give", () => {
    const value = {
      messages: [{ role: "user", content: "hello there", id: 1 }],
      count: 3,
      nested: { a: [1, 2, 3], b: "x" },
    };
    expect(serde.loads(serde.dumps(value))).toEqual(JSON.parse(JSON.stringify(value)));
  });
});

describe("serialising a __proto__ key", () => {
  it("keeps it as data, through the tagged path too", () => {
    const serde = new JsonSerializer();
    const value = JSON.parse('{"__proto__": {"polluted": true}, "when": null}');
    value.when = new Date(0);
    const back = serde.loads(serde.dumps(value)) as Record<string, unknown>;
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
    expect(Object.getOwnPropertyNames(back).sort()).toEqual(["__proto__", "when"]);
    expect(Object.getOwnPropertyDescriptor(back, "__proto__")!.value).toEqual({ polluted: true });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
