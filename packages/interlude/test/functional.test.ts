/** The functional API: entrypoint + task. */

import { Command, entrypoint, interrupt, isInterrupted, MemorySaver, task } from "@interlude/core";
import { describe, expect, it } from "vitest";

describe("entrypoint", () => {
  it("runs a function as a workflow that pauses and resumes, with task() results kept", async () => {
    let drafted = 0;
    const draft = task("draft", async (topic: string) => {
      drafted++;
      return `An essay about ${topic}`;
    });
    const workflow = entrypoint({ name: "essay", checkpointer: new MemorySaver() }, async (topic: string) => {
      const essay = await draft(topic);
      const verdict = interrupt<unknown, string>({ essay, action: "approve?" });
      return { essay, verdict };
    });
    const config = { configurable: { thread_id: "essay-1" } };
    // Typed as LangGraph.js types it (the output); isInterrupted() tells a pause.
    const paused = await workflow.invoke("cats", config);
    if (!isInterrupted(paused)) throw new Error("the workflow should have paused");
    expect(paused.__interrupt__[0]!.value).toEqual({ essay: "An essay about cats", action: "approve?" });
    const done = await workflow.invoke(new Command({ resume: "approved" }), config);
    expect(done).toEqual({ essay: "An essay about cats", verdict: "approved" });
    expect(drafted).toBe(1);
    // As LangGraph: an entrypoint thread's values are its output.
    expect((await workflow.getState(config)).values).toEqual(done);
  });

  it("returns the value directly when nothing pauses", async () => {
    const double = entrypoint("double", async (n: number) => n * 2);
    expect(await double.invoke(21)).toBe(42);
  });
});
