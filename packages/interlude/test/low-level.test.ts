/**
 * The low-level API's refusals: a graph that could not run is refused when it is made, and a
 * mistake at run time is a typed error naming what to fix (the behaviours shared with
 * LangGraph.js are in compat/test/pregel-low-level.test.ts).
 */

import {
  EmptyInputError,
  Graph,
  GraphValidationError,
  InvalidUpdateError,
  OutsideNodeError,
  START,
  UnsupportedFeatureError,
} from "@interlude/core";
import { LastValue } from "@interlude/core/channels";
import { Channel, ChannelWrite, PASSTHROUGH, Pregel } from "@interlude/core/pregel";
import { describe, expect, it } from "vitest";

const addOne = (x: number) => x + 1;
const chain = (from: string, to: string) =>
  Channel.subscribeTo(from)
    .pipe(addOne)
    .pipe(Channel.writeTo([to]));
const channels = () => ({ input: new LastValue<number>(), output: new LastValue<number>() });

describe("a Pregel that could not run is refused when it is made", () => {
  it.each([
    {
      name: "a node reads a channel not declared",
      params: () => ({ nodes: { one: chain("input", "missing") }, inputChannels: "input", outputChannels: "output" }),
      message: /uses channel "missing", which is not in channels/,
    },
    {
      name: "no node subscribes to the input channel",
      params: () => ({ nodes: { one: chain("output", "input") }, inputChannels: "input", outputChannels: "output" }),
      message: /No node subscribes to the input channel input/,
    },
    {
      name: "a node is not a PregelNode",
      params: () => ({ nodes: { one: addOne as never }, inputChannels: "input", outputChannels: "output" }),
      message: /Node "one" is not a PregelNode/,
    },
    {
      name: "a breakpoint names no node",
      params: () => ({
        nodes: { one: chain("input", "output") },
        inputChannels: "input",
        outputChannels: "output",
        interruptBefore: ["two"],
      }),
      message: /Breakpoint node "two" is not in nodes/,
    },
  ])("$name", ({ params, message }) => {
    const attempt = () => new Pregel({ channels: channels(), ...params() });
    expect(attempt).toThrow(GraphValidationError);
    expect(attempt).toThrow(message);
  });

  it("LangGraph.js's console tracing (debug: true) is refused, pointing to the debug stream", () => {
    const attempt = () =>
      new Pregel({
        nodes: { one: chain("input", "output") },
        channels: channels(),
        inputChannels: "input",
        outputChannels: "output",
        debug: true,
      });
    expect(attempt).toThrow(UnsupportedFeatureError);
    expect(attempt).toThrow(/streamMode "debug"/);
  });

  it("subscribing to several channels with a key is refused where it is written", () => {
    expect(() => Channel.subscribeTo(["a", "b"], { key: "x" })).toThrow(GraphValidationError);
  });
});

describe("mistakes at run time", () => {
  const app = () =>
    new Pregel({
      nodes: {
        one: Channel.subscribeTo(["input"])
          .pipe((x: { input: number }) => x.input)
          .pipe(Channel.writeTo(["output"])),
      },
      channels: channels(),
      inputChannels: ["input"],
      outputChannels: "output",
    });

  it("input channels given as a list take an object keyed by channel", async () => {
    await expect(app().invoke(5)).rejects.toThrow(InvalidUpdateError);
    await expect(app().invoke({ other: 5 })).rejects.toThrow(EmptyInputError);
    expect(await app().invoke({ input: 5 })).toBe(5);
  });

  it("a writer writing a channel the graph does not have fails the run, naming it", async () => {
    const stray = new ChannelWrite([{ channel: "stray", value: PASSTHROUGH }]);
    // Not a ChannelWrite itself, so not checked when the graph is made: caught when it writes.
    const wrapped = { invoke: (value: unknown) => stray.invoke(value) };
    const graph = new Pregel({
      nodes: {
        one: Channel.subscribeTo("input")
          .pipe(addOne)
          .pipe(wrapped as never),
      },
      channels: channels(),
      inputChannels: "input",
      outputChannels: "output",
    });
    const run = graph.invoke(1);
    await expect(run).rejects.toThrow(InvalidUpdateError);
    await expect(graph.invoke(1)).rejects.toThrow(/wrote to "stray"/);
  });

  it("a ChannelWrite called outside a running node is an OutsideNodeError", async () => {
    await expect(Channel.writeTo(["output"]).invoke(1)).rejects.toThrow(OutsideNodeError);
  });
});

describe("a non-state Graph's refusals", () => {
  it("options about a state (errorHandler, defer, input) are refused, not ignored", () => {
    for (const option of [{ errorHandler: () => ({}) }, { defer: true }, { input: {} }])
      expect(() => new Graph().addNode("a", addOne, option as never)).toThrow(UnsupportedFeatureError);
  });

  it("a node has one way out: a second edge from it is refused (a StateGraph fans out)", () => {
    const graph = new Graph().addNode("a", addOne).addNode("b", addOne).addNode("c", addOne).addEdge("a", "b");
    expect(() => graph.addEdge("a", "c")).toThrow(GraphValidationError);
  });

  it("a conditional edge choosing a node it does not lead to fails the run", async () => {
    const graph = new Graph()
      .addNode("a", addOne)
      .addNode("b", addOne)
      .addNode("c", addOne)
      .addEdge(START, "a")
      .addEdge("b", "c")
      .addConditionalEdges("a", () => "c", { go: "b" })
      .compile();
    await expect(graph.invoke(1)).rejects.toThrow(/chose "c", which is not one of its targets \(b\)/);
  });
});
