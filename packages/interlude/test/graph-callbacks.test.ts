/** Graph handlers: a failing handler is reported as LangGraph reports it. */
import { Annotation, Command, GraphCallbackHandler, interrupt, MemorySaver, START, StateGraph } from "@interlude/core";
import { afterEach, expect, it, vi } from "vitest";

function reviewGraph() {
  const State = Annotation.Root({ answer: Annotation<string>() });
  return new StateGraph(State)
    .addNode("ask", () => ({ answer: interrupt<string, string>("approve?") }))
    .addEdge(START, "ask")
    .compile({ checkpointer: new MemorySaver() });
}

afterEach(() => vi.restoreAllMocks());

it("a handler that throws is logged with its name and method, as a warning unless it raises", async () => {
  const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
  const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
  class Failing extends GraphCallbackHandler {
    override handleResume() {
      throw new Error("observer down");
    }
  }
  const graph = reviewGraph();
  const config = { configurable: { thread_id: "t" }, callbacks: [new Failing()] };
  await graph.invoke({}, config);
  expect(await graph.invoke(new Command({ resume: "yes" }), config)).toEqual({ answer: "yes" });
  expect(warn).toHaveBeenCalledWith("Error in handler Failing, handleResume: Error: observer down");
  expect(error).not.toHaveBeenCalled();

  const strict = new Failing();
  strict.raiseError = true;
  const thread = { configurable: { thread_id: "u" }, callbacks: [strict] };
  await graph.invoke({}, thread);
  await expect(graph.invoke(new Command({ resume: "yes" }), thread)).rejects.toThrow("observer down");
  expect(error).toHaveBeenCalledWith("Error in handler Failing, handleResume: Error: observer down");
  // Refused before any node ran: the question is still open.
  expect((await graph.getState(thread)).tasks[0]?.interrupts.map((i) => i.value)).toEqual(["approve?"]);
});
