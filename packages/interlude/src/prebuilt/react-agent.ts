/**
 * `createReactAgent`: a model that calls tools until it answers, as LangGraph.js's prebuilt
 * builds it (nodes "agent" and "tools"). With `toolReview` (Interlude), a "review" node asks a
 * human about the calls first, in `humanInTheLoopMiddleware`'s protocol.
 */
import { type BaseMessage, SystemMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "../checkpoint/base.js";
import { END, START } from "../constants.js";
import { InterludeError } from "../errors/base.js";
import { Annotation } from "../graph/annotation.js";
import { type StateDefinitionInit, StateGraph } from "../graph/state-graph.js";
import { MessagesAnnotation } from "../messages/annotation.js";
import { type Messages, messagesStateReducer } from "../messages/reducer.js";
import { type ToolLike, ToolNode, toolsCondition } from "./tool-node.js";
import { createToolReviewNode, reviewCondition, type ToolReviewOptions } from "./tool-review.js";

/** A chat model: `invoke(messages)`, and `bindTools(tools)` when it calls tools. */
export interface ChatModelLike {
  invoke(messages: BaseMessage[], config?: any): Promise<BaseMessage> | BaseMessage;
  /** Typed loosely: each provider types its tools its own way. */
  bindTools?(tools: any[]): { invoke(messages: BaseMessage[], config?: any): Promise<BaseMessage> | BaseMessage };
}

export interface CreateReactAgentParams {
  llm: ChatModelLike;
  tools: readonly ToolLike[] | ToolNode;
  /** A system prompt: text, a SystemMessage, or a function from state to the model's messages. */
  prompt?: string | SystemMessage | ((state: { messages: BaseMessage[] }) => BaseMessage[] | Promise<BaseMessage[]>);
  stateSchema?: StateDefinitionInit;
  checkpointer?: BaseCheckpointSaver | false;
  /** Former name of `checkpointer`. */
  checkpointSaver?: BaseCheckpointSaver | false;
  interruptBefore?: Array<"agent" | "tools" | "review">;
  interruptAfter?: Array<"agent" | "tools" | "review">;
  name?: string;
  /** LangGraph's v1 (one tools node) and v2 (a task per call) behave the same here: both run the calls in parallel. */
  version?: "v1" | "v2";
  /** Interlude: review tool calls before they run (LangChain v1 `humanInTheLoopMiddleware` protocol). */
  toolReview?: ToolReviewOptions;
}

/** An option of LangGraph's createReactAgent that Interlude does not implement. */
export class UnsupportedAgentOptionError extends InterludeError {
  constructor(option: string) {
    super(
      "UNSUPPORTED_AGENT_OPTION",
      `createReactAgent option "${option}" is not supported by Interlude yet. Build the graph with StateGraph, ToolNode and toolsCondition instead.`,
    );
  }
}

const SUPPORTED = new Set([
  "llm",
  "tools",
  "prompt",
  "stateSchema",
  "checkpointer",
  "checkpointSaver",
  "interruptBefore",
  "interruptAfter",
  "name",
  "version",
  "toolReview",
]);

function promptRunner(prompt: CreateReactAgentParams["prompt"]) {
  if (prompt === undefined) return (state: { messages: BaseMessage[] }) => state.messages;
  if (typeof prompt === "function") return prompt;
  const system = typeof prompt === "string" ? new SystemMessage(prompt) : prompt;
  return (state: { messages: BaseMessage[] }) => [system, ...state.messages];
}

/** The state of `createReactAgent`: messages, and the structured response LangGraph.js reserves a key for. */
export function createReactAgentAnnotation() {
  return Annotation.Root({
    messages: Annotation<BaseMessage[], Messages>({ reducer: messagesStateReducer, default: () => [] }),
    structuredResponse: Annotation<Record<string, unknown>>(),
  });
}

export function createReactAgent(params: CreateReactAgentParams) {
  for (const key of Object.keys(params))
    if (!SUPPORTED.has(key) && (params as unknown as Record<string, unknown>)[key] !== undefined)
      throw new UnsupportedAgentOptionError(key);
  const toolNode = params.tools instanceof ToolNode ? params.tools : new ToolNode(params.tools);
  const tools = [...toolNode.tools.values()];
  const model = tools.length && params.llm.bindTools ? params.llm.bindTools([...tools]) : params.llm;
  const messagesFor = promptRunner(params.prompt);

  const callModel = async (state: { messages: BaseMessage[] }, config: unknown) => ({
    messages: [await model.invoke(await messagesFor(state), config)],
  });
  const review = params.toolReview;
  const graph = new StateGraph(params.stateSchema ?? MessagesAnnotation)
    .addNode("agent", callModel)
    .addNode("tools", toolNode)
    .addEdge(START, "agent")
    .addEdge("tools", "agent");
  if (review) {
    graph
      .addNode("review", createToolReviewNode(review))
      .addConditionalEdges("agent", (state: any) => (toolsCondition(state) === END ? END : "review"), ["review", END])
      .addConditionalEdges("review", reviewCondition("tools", "agent"), ["tools", "agent"]);
  } else graph.addConditionalEdges("agent", toolsCondition as (state: any) => string, ["tools", END]);
  return graph.compile({
    checkpointer: params.checkpointer ?? params.checkpointSaver,
    interruptBefore: params.interruptBefore,
    interruptAfter: params.interruptAfter,
    name: params.name,
  });
}
