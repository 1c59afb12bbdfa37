/**
 * Sample approval graph: a plan is proposed, a human approves, edits or rejects it (Agent
 * Inbox's HumanInterrupt), then it is applied. Serve it with
 *   npx interlude serve --config examples/approval/langgraph.json
 */
import { Annotation, END, interrupt, START, StateGraph } from "@interlude/core";

const State = Annotation.Root({
  request: Annotation(),
  plan: Annotation(),
  review: Annotation(),
  result: Annotation(),
});

const ANSWER_TYPES = ["accept", "edit", "response", "ignore"];

/** HumanResponse `{ type, args }`, checked without a validator library (any Standard Schema works). */
const HumanResponse = {
  "~standard": {
    version: 1,
    vendor: "interlude-example",
    validate(value) {
      if (typeof value !== "object" || value === null)
        return { issues: [{ message: "expected an object { type, args }" }] };
      if (!ANSWER_TYPES.includes(value.type))
        return { issues: [{ message: `type must be one of ${ANSWER_TYPES.join(", ")}`, path: ["type"] }] };
      if (
        value.type === "edit" &&
        (typeof value.args !== "object" || value.args === null || typeof value.args.args !== "object")
      )
        return { issues: [{ message: "edit needs args: { action, args: {...} }", path: ["args"] }] };
      if (value.type === "response" && typeof value.args !== "string")
        return { issues: [{ message: "response needs args: string", path: ["args"] }] };
      return { value };
    },
  },
};

const responseJsonSchema = {
  type: "object",
  required: ["type"],
  properties: {
    type: { enum: ANSWER_TYPES },
    args: { description: "edit: { action, args }; response: a string; accept/ignore: null" },
  },
};

function propose(state) {
  const service = state.request?.service ?? "billing";
  const version = state.request?.version ?? "1.0.0";
  return { plan: { action: "deploy", args: { service, version, replicas: 3 } } };
}

function review(state) {
  const answer = interrupt(
    {
      action_request: { action: state.plan.action, args: state.plan.args },
      config: { allow_accept: true, allow_edit: true, allow_respond: true, allow_ignore: true },
      description: `Deploy **${state.plan.args.service}** version \`${state.plan.args.version}\` with ${state.plan.args.replicas} replicas?`,
    },
    { responseSchema: HumanResponse, jsonSchema: responseJsonSchema },
  );
  if (answer.type === "accept") return { review: { approved: true } };
  if (answer.type === "edit") return { review: { approved: true, edited: true }, plan: answer.args };
  if (answer.type === "response") return { review: { approved: false, feedback: answer.args } };
  return { review: { approved: false, ignored: true } };
}

function apply(state) {
  if (!state.review?.approved)
    return { result: `not applied${state.review?.feedback ? `: ${state.review.feedback}` : ""}` };
  const { service, version, replicas } = state.plan.args;
  return { result: `deployed ${service}@${version} x${replicas}` };
}

export const graph = new StateGraph(State)
  .addNode("propose", propose)
  .addNode("review", review)
  .addNode("apply", apply)
  .addEdge(START, "propose")
  .addEdge("propose", "review")
  .addEdge("review", "apply")
  .addEdge("apply", END);
