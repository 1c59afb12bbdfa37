// The approval workflow behind `npm run demo`: a plan is proposed, a person approves, edits or
// rejects it, and the decision is applied. The plan is produced inside task(), so re-running the
// review node on resume does not propose a different plan.
import { Annotation, END, interrupt, START, StateGraph, task } from "@interlude/core";

export const State = Annotation.Root({
  request: Annotation(),
  plan: Annotation(),
  decision: Annotation(),
  outcome: Annotation(),
});

const proposePlan = task("propose_plan", async (request) => {
  const steps = [
    `Check the account named in "${request}"`,
    "Issue a refund of 20 EUR",
    "Email the customer a confirmation",
  ];
  return steps.map((step, i) => `${i + 1}. ${step}`).join("\n");
});

export const builder = new StateGraph(State)
  .addNode("propose", async (state) => ({ plan: await proposePlan(state.request) }))
  .addNode("review", (state) => {
    const decision = interrupt(
      { question: "Approve this plan?", plan: state.plan, options: ["approve", "edit", "reject"] },
      { key: "review" },
    );
    return { decision };
  })
  .addNode("apply", (state) => {
    const { action, plan } = state.decision;
    if (action === "reject") return { outcome: "Rejected: nothing was done." };
    const final = action === "edit" ? plan : state.plan;
    return { outcome: `Applied plan:\n${final}` };
  })
  .addEdge(START, "propose")
  .addEdge("propose", "review")
  .addEdge("review", "apply")
  .addEdge("apply", END);
