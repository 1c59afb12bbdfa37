import { Annotation, StateGraph, UnsupportedFeatureError } from "@interlude/core";
import { describe, expect, it } from "vitest";

const State = Annotation.Root({ v: Annotation<number>() });

describe("LangGraph options Interlude does not implement", () => {
  it("refuses addNode({ defer: true }) with a typed error naming it, instead of running the node early", () => {
    const error = (() => {
      try {
        new StateGraph(State).addNode("qa", () => ({ v: 1 }), { defer: true });
      } catch (e) {
        return e;
      }
    })() as UnsupportedFeatureError;
    expect(error).toBeInstanceOf(UnsupportedFeatureError);
    expect(error.code).toBe("UNSUPPORTED_FEATURE");
    expect(error.feature).toBe('addNode("qa", fn, { defer: true })');
    expect(error.message).toMatch(/addEdge\(\[/);
  });

  it("refuses a cachePolicy, also in the object form of addNode", () => {
    expect(() => new StateGraph(State).addNode([["n", () => ({ v: 1 }), { cachePolicy: { ttl: 60 } }]])).toThrow(
      UnsupportedFeatureError,
    );
  });

  it("accepts the options when they ask for nothing (defer: false)", () => {
    expect(() => new StateGraph(State).addNode("n", () => ({ v: 1 }), { defer: false })).not.toThrow();
  });
});
