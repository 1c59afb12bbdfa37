/**
 * A review step for tool calls, speaking LangChain v1's `humanInTheLoopMiddleware` protocol:
 * the interrupt asks `{ actionRequests, reviewConfigs }` and is answered by `{ decisions }`,
 * one per action, in order. Approved calls stay, edited calls get the reviewer's name and
 * arguments, rejected calls are answered by a ToolMessage saying why (ToolNode then skips
 * them), so the tools run only after the whole review, once.
 */
import { AIMessage, type BaseMessage, isAIMessage, ToolMessage } from "@langchain/core/messages";
import type { ToolCall } from "@langchain/core/messages/tool";
import { toJsonSchema } from "@langchain/core/utils/json_schema";
import { interrupt } from "../interrupt/interrupt.js";
import type { StandardIssue, StandardSchemaV1 } from "../interrupt/standard-schema.js";
import { pendingToolCalls, type ToolLike } from "./tool-node.js";

export type DecisionType = "approve" | "edit" | "reject";

export interface ActionRequest {
  name: string;
  args: Record<string, unknown>;
  description?: string;
}

export interface ReviewConfig {
  actionName: string;
  allowedDecisions: DecisionType[];
  /** JSON Schema of the arguments, for a reviewer's edit form. */
  argsSchema?: Record<string, unknown>;
}

/** The interrupt's value. */
export interface HITLRequest {
  actionRequests: ActionRequest[];
  reviewConfigs: ReviewConfig[];
}

export type Decision =
  | { type: "approve" }
  | { type: "edit"; editedAction: { name: string; args: Record<string, unknown> } }
  | { type: "reject"; message?: string };

/** The answer: `new Command({ resume: { decisions: [...] } })`. */
export interface HITLResponse {
  decisions: Decision[];
}

export interface InterruptOnConfig {
  allowedDecisions: DecisionType[];
  description?: string | ((call: ToolCall) => string);
  argsSchema?: Record<string, unknown>;
}

export interface ToolReviewOptions {
  /** Tools to review: `true` (every decision allowed), `false` (run unreviewed) or a config. Unlisted tools run unreviewed. */
  interruptOn: Record<string, boolean | InterruptOnConfig>;
  /** Start of each action's default description. */
  descriptionPrefix?: string;
  /** Tools whose argument schemas become `argsSchema` where the config gives none (an Interlude extra). */
  tools?: readonly ToolLike[];
}

const ALL_DECISIONS: DecisionType[] = ["approve", "edit", "reject"];

function configFor(options: ToolReviewOptions, name: string): InterruptOnConfig | undefined {
  const entry = options.interruptOn[name];
  if (entry === undefined || entry === false) return undefined;
  return entry === true ? { allowedDecisions: ALL_DECISIONS } : entry;
}

/** Each tool's argument schema as JSON Schema, for the tools that declare one. */
function argsSchemas(tools: readonly ToolLike[] = []): Map<string, Record<string, unknown>> {
  return new Map(
    tools.flatMap((t) => {
      const schema = (t as { schema?: unknown }).schema;
      return schema ? [[t.name, toJsonSchema(schema as never) as Record<string, unknown>] as const] : [];
    }),
  );
}

function describe(options: ToolReviewOptions, config: InterruptOnConfig, call: ToolCall): string {
  if (typeof config.description === "function") return config.description(call);
  if (config.description) return config.description;
  const prefix = options.descriptionPrefix ?? "Tool execution requires approval";
  return `${prefix}\n\nTool: ${call.name}\nArgs: ${JSON.stringify(call.args, null, 2)}`;
}

/** Checks a reviewer's answer before the node uses it: a wrong answer is refused and the question stays pending. */
function decisionsSchema(configs: readonly ReviewConfig[]): StandardSchemaV1<unknown, HITLResponse> {
  return {
    "~standard": {
      version: 1,
      vendor: "interlude",
      validate(value) {
        const decisions = (value as HITLResponse | undefined)?.decisions;
        if (!Array.isArray(decisions))
          return { issues: [{ message: "Answer with { decisions: [...] }, one decision per action request." }] };
        if (decisions.length !== configs.length)
          return {
            issues: [
              { message: `Expected ${configs.length} decision(s), one per action request; got ${decisions.length}.` },
            ],
          };
        const issues: StandardIssue[] = [];
        decisions.forEach((decision, i) => {
          const { actionName, allowedDecisions } = configs[i]!;
          if (!allowedDecisions.includes(decision?.type))
            issues.push({
              message: `Decision "${decision?.type}" is not allowed for "${actionName}"; allowed: ${allowedDecisions.join(", ")}.`,
              path: ["decisions", i, "type"],
            });
          else if (decision.type === "edit" && typeof decision.editedAction?.name !== "string")
            issues.push({
              message: "An edit decision needs editedAction: { name, args }.",
              path: ["decisions", i, "editedAction"],
            });
        });
        return issues.length ? { issues } : { value: value as HITLResponse };
      },
    },
  };
}

function rejection(call: ToolCall, message: string | undefined): ToolMessage {
  return new ToolMessage({
    content: message ?? `The user rejected the call to tool "${call.name}"; it was not run.`,
    name: call.name,
    tool_call_id: call.id ?? "",
    status: "error",
  });
}

/**
 * A node that reviews the tool calls of the last AI message before they run. Place it
 * between the model and the `ToolNode`, and route after it with `reviewCondition`.
 */
export function createToolReviewNode(options: ToolReviewOptions) {
  const schemas = argsSchemas(options.tools);
  return (state: { messages: BaseMessage[] }): { messages: BaseMessage[] } | Record<string, never> => {
    const last = state.messages.at(-1);
    if (!last || !isAIMessage(last)) return {};
    const calls = last.tool_calls ?? [];
    const reviewed = calls.flatMap((call) => {
      const config = configFor(options, call.name);
      return config ? [{ call, config }] : [];
    });
    if (reviewed.length === 0) return {};
    const reviewConfigs = reviewed.map(({ call, config }): ReviewConfig => {
      const argsSchema = config.argsSchema ?? schemas.get(call.name);
      const review = { actionName: call.name, allowedDecisions: config.allowedDecisions };
      return argsSchema ? { ...review, argsSchema } : review;
    });
    const request: HITLRequest = {
      actionRequests: reviewed.map(({ call, config }) => ({
        name: call.name,
        args: call.args,
        description: describe(options, config, call),
      })),
      reviewConfigs,
    };
    const { decisions } = interrupt<HITLRequest, HITLResponse>(request, {
      responseSchema: decisionsSchema(reviewConfigs),
    });
    const decisionOf = new Map(reviewed.map(({ call }, i) => [call, decisions[i]!]));
    const rejected: ToolMessage[] = [];
    const revised = calls.map((call) => {
      const decision = decisionOf.get(call);
      if (decision?.type === "edit")
        return { ...call, name: decision.editedAction.name, args: decision.editedAction.args };
      if (decision?.type === "reject") rejected.push(rejection(call, decision.message));
      return call;
    });
    // Same id: the messages reducer replaces the model's message with the revised one.
    const message = new AIMessage({
      content: last.content,
      id: last.id,
      name: last.name,
      tool_calls: revised,
      additional_kwargs: last.additional_kwargs,
      response_metadata: last.response_metadata,
      usage_metadata: last.usage_metadata,
    });
    return { messages: [message, ...rejected] };
  };
}

/** After the review: to "tools" while some call is still unanswered, else back to the model. */
export function reviewCondition(tools = "tools", model = "agent") {
  return (state: { messages: BaseMessage[] }): string => (pendingToolCalls(state.messages).length ? tools : model);
}
