// A node with a cache policy that asks a person: LangGraph caches its result with the answer it got,
// so the next thread with the same input is served that answer and nobody is asked. Interlude
// never caches a node that was answered: every thread asks.
import assert from "node:assert/strict";
import { Annotation, Command, InMemoryCache, interrupt, MemorySaver, START, StateGraph } from "@interlude/core";

const State = Annotation.Root({ transfer: Annotation(), decision: Annotation() });
const graph = new StateGraph(State)
  .addNode("review", (s) => ({ decision: interrupt(`Approve ${s.transfer}?`) }), { cachePolicy: true })
  .addEdge(START, "review")
  .compile({ checkpointer: new MemorySaver(), cache: new InMemoryCache() });

const alice = { configurable: { thread_id: "alice" } };
await graph.invoke({ transfer: "$1M to ACME" }, alice);
await graph.invoke(new Command({ resume: "approved" }), alice);

const bob = await graph.invoke({ transfer: "$1M to ACME" }, { configurable: { thread_id: "bob" } });
assert.equal(bob.__interrupt__?.[0]?.value, "Approve $1M to ACME?");
console.log(`second thread asks again: ${bob.__interrupt__[0].value}`);
