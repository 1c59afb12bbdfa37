/**
 * streamEvents v3, where Interlude goes beyond LangGraph.js (compat/test/stream-events-v3*.test.ts
 * checks where they agree): `run.abort()` cancels the run and leaves the thread resumable, an
 * encoding other than server-sent events is refused, and a reader leaving the encoded stream
 * cancels the run.
 */
import {
  Annotation,
  MemorySaver,
  RunCancelledError,
  START,
  StateGraph,
  UnsupportedFeatureError,
} from "@interlude/core";
import { describe, expect, it } from "vitest";

const count = Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 });
const State = Annotation.Root({ count });
const thread = (id: string) => ({ configurable: { thread_id: id } });

/** a waits for `gate`, then b: the run is in a's step until the gate opens. */
function gated(gate: Promise<void>, started: () => void) {
  return new StateGraph(State)
    .addNode("a", async () => {
      started();
      await gate;
      return { count: 1 };
    })
    .addNode("b", () => ({ count: 10 }))
    .addEdge(START, "a")
    .addEdge("a", "b")
    .compile({ checkpointer: new MemorySaver() });
}

describe("streamEvents v3", () => {
  it("run.abort() cancels the run at its next step boundary: reading throws RunCancelledError, the thread continues from there", async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const graph = gated(gate, started);
    const run = await graph.streamEvents({ count: 0 }, { version: "v3", ...thread("abort") });
    await running;
    run.abort("stop");
    open();
    const methods: string[] = [];
    const reading = (async () => {
      for await (const event of run) methods.push(event.method);
    })();
    await expect(reading).rejects.toBeInstanceOf(RunCancelledError);
    await expect(run.output).rejects.toBeInstanceOf(RunCancelledError);
    expect(methods.at(-1)).toBe("lifecycle");
    // The run stopped at the step boundary after a (which finished): b never ran.
    const state = await graph.getState(thread("abort"));
    expect(state.values).toEqual({ count: 1 });
    expect(state.next).toEqual(["b"]);
    expect(await graph.invoke(null, thread("abort"))).toEqual({ count: 11 });
  });

  it("an encoding other than text/event-stream is refused before anything runs", async () => {
    let ran = false;
    const graph = gated(Promise.resolve(), () => (ran = true));
    await expect(
      graph.streamEvents({ count: 0 }, { version: "v3", encoding: "application/json" as never, ...thread("enc") }),
    ).rejects.toBeInstanceOf(UnsupportedFeatureError);
    expect(ran).toBe(false);
  });

  it("a reader that stops reading the server-sent events cancels the run", async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const graph = gated(gate, started);
    const stream = await graph.streamEvents(
      { count: 0 },
      { version: "v3", encoding: "text/event-stream", ...thread("sse") },
    );
    const reader = stream.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toMatch(/^event: lifecycle\ndata: /);
    await running;
    await reader.cancel();
    open();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const state = await graph.getState(thread("sse"));
    expect(state.next).toEqual(["b"]);
    expect(state.values).toEqual({ count: 1 });
  });
});
