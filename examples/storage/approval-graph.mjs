// The graph the storage examples share: one approval that pauses for a human.
import { Annotation, interrupt, START, StateGraph } from "@interlude/core";

export const builder = new StateGraph(Annotation.Root({ request: Annotation(), approved: Annotation() }))
  .addNode("approve", (state) => ({ approved: interrupt({ approve: state.request }) }))
  .addEdge(START, "approve");
