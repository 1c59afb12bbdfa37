/**
 * The wiring of durable-savers.ts: in each project of the root vitest config, the Interlude
 * runtime the scenarios get makes the saver that project names, empty and apart from the others.
 */
import { MemorySaver } from "@interlude/core";
import { describe, expect, it } from "vitest";
import { runtimes } from "./harness.js";

const ours = runtimes.find(([name]) => name === "interlude")![1];

const saverClasses: Record<string, () => Promise<unknown>> = {
  sqlite: async () => (await import("@interlude/checkpoint-sqlite")).SqliteSaver,
  postgres: async () => (await import("@interlude/checkpoint-postgres")).PostgresSaver,
  redis: async () => (await import("@interlude/checkpoint-redis")).RedisSaver,
};

describe(`the scenarios' Interlude saver (COMPAT_SAVER=${process.env.COMPAT_SAVER ?? ""})`, () => {
  it("is the saver the project names", async () => {
    const kind = process.env.COMPAT_SAVER;
    const expected = kind ? await saverClasses[kind]!() : MemorySaver;
    const saver = new ours.MemorySaver();
    expect(saver).toBeInstanceOf(expected as new () => unknown);
    expect(saver.constructor.name).toBe("MemorySaver");
  });

  it("is empty when made, whatever another saver holds", async () => {
    const { StateGraph, Annotation, START } = ours;
    const graph = (saver: unknown) =>
      new StateGraph(Annotation.Root({ n: Annotation() }))
        .addNode("one", () => ({ n: 1 }))
        .addEdge(START, "one")
        .compile({ checkpointer: saver });
    const config = { configurable: { thread_id: "same" } };
    const first = new ours.MemorySaver();
    await graph(first).invoke({ n: 0 }, config);
    expect((await graph(first).getState(config)).values).toEqual({ n: 1 });
    expect((await graph(new ours.MemorySaver()).getState(config)).values).toEqual({});
  });
});
