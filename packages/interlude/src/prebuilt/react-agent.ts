/**
 * `createReactAgent`: a model that calls tools until it answers, as LangGraph.js's prebuilt
 * builds it: nodes "agent" and "tools", and with the options "pre_model_hook" (before each model
 * call; `llmInputMessages` is what the model then reads), "post_model_hook" (after it) and
 * "generate_structured_response" (`responseFormat`, once the model answers). With `toolReview`
 * (Interlude), a "review" node asks a human about the calls first, in
 * `humanInTheLoopMiddleware`'s protocol.
 */
import { type AIMessage, type BaseMessage, isAIMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { Runnable } from "@langchain/core/runnables";
import type { BaseCheckpointSaver } from "../checkpoint/base.js";
import { END, START } from "../constants.js";
import { InterludeError } from "../errors/base.js";
import type { StateType, UpdateType } from "../graph/annotation.js";
import { Annotation } from "../graph/annotation.js";
import type { CompiledStateGraph } from "../graph/compiled.js";
import type { RunnableLike } from "../graph/runnable.js";
import { type SpecOfDefinition, type StateDefinitionInit, StateGraph } from "../graph/state-graph.js";
import type { StandardSchemaV1 } from "../interrupt/standard-schema.js";
import { type Messages, messagesStateReducer } from "../messages/reducer.js";
import type { OverwriteValue } from "../primitives/overwrite.js";
import { Send } from "../primitives/send.js";
import type { BaseStore } from "../store/base.js";
import {
  AgentModelError,
  type AgentPrompt,
  agentPrompt,
  chatModelOf,
  type ModelLike,
  withAgentTools,
} from "./agent-model.js";
import { withAgentName } from "./agent-name.js";
import { pendingToolCalls, type ToolLike, ToolNode } from "./tool-node.js";
import { createToolReviewNode, reviewCondition, type ToolReviewOptions } from "./tool-review.js";

/** A chat model: `invoke(messages)`, and `bindTools(tools)` when it calls tools. */
export interface ChatModelLike {
  invoke(messages: BaseMessage[], config?: any): Promise<BaseMessage> | BaseMessage;
  /** Typed loosely: each provider types its tools its own way. */
  bindTools?(tools: any[]): { invoke(messages: BaseMessage[], config?: any): Promise<BaseMessage> | BaseMessage };
}

/**
 * The structured response's schema (a validator such as zod, whose output types
 * `structuredResponse`, or a JSON Schema), or it with the system prompt and options it is asked with.
 */
export type ResponseFormat<R = Record<string, any>> =
  | StandardSchemaV1<any, R>
  | { schema: StandardSchemaV1<any, R> | Record<string, unknown>; prompt?: string; [option: string]: unknown }
  | Record<string, unknown>;

/** The agent's state as `invoke` returns it: the state schema's keys, its messages and structured response. */
export type AgentState<A, R> = Simplify<
  Omit<StateType<SpecOfDefinition<A>>, "messages" | "structuredResponse"> & {
    messages: BaseMessage[];
    structuredResponse: R;
  }
>;

/** What the agent's `invoke` takes, as LangGraph.js types it: an update of the state schema's keys and its messages. */
export type AgentUpdate<A> = Simplify<
  Omit<UpdateType<SpecOfDefinition<A>>, "messages"> & { messages?: Messages | OverwriteValue<BaseMessage[]> }
>;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The nodes `createReactAgent` may build. */
type AgentNode = "agent" | "tools" | "review" | "pre_model_hook" | "post_model_hook" | "generate_structured_response";

export interface CreateReactAgentParams<A = undefined, R extends Record<string, any> = Record<string, any>> {
  /** The model, or a function of the state and config that picks one for each call (tools bound by it). */
  llm: ChatModelLike | ModelLike | ((state: any, config: any) => ModelLike | Promise<ModelLike>);
  /** Tools (those that are not Runnables, a provider's built-in tools, are only bound), or a ToolNode. */
  tools: readonly ToolLike[] | readonly unknown[] | ToolNode;
  /** A system prompt: text, a SystemMessage, a function from state to the model's messages, or a Runnable. */
  prompt?: AgentPrompt;
  /** @deprecated LangGraph's former name of `prompt`. */
  stateModifier?: AgentPrompt;
  /** @deprecated LangGraph's former prompt, a function of the messages. */
  messageModifier?:
    | string
    | SystemMessage
    | ((messages: BaseMessage[]) => BaseMessage[] | Promise<BaseMessage[]>)
    | Runnable;
  stateSchema?: A & StateDefinitionInit;
  contextSchema?: unknown;
  checkpointer?: BaseCheckpointSaver | false;
  /** Former name of `checkpointer`. */
  checkpointSaver?: BaseCheckpointSaver | false;
  interruptBefore?: Array<"agent" | "tools" | "review" | "pre_model_hook" | "post_model_hook">;
  interruptAfter?: Array<"agent" | "tools" | "review" | "pre_model_hook" | "post_model_hook">;
  store?: BaseStore;
  /** Once the model answers without tool calls, a last call gives `structuredResponse` in this shape. */
  responseFormat?: ResponseFormat<R>;
  /** Runs before each model call; may return `llmInputMessages` for the model to read instead of `messages`. */
  preModelHook?: RunnableLike;
  /** Runs after each model call, before routing to the tools or the end. */
  postModelHook?: RunnableLike;
  name?: string;
  description?: string;
  /** `"v2"` sends each tool call to the tools node as a task of its own. */
  version?: "v1" | "v2";
  /** `"inline"`: the agent's name is written into its messages' text for models that ignore `name`. */
  includeAgentName?: "inline";
  /** Interlude: review tool calls before they run (LangChain v1 `humanInTheLoopMiddleware` protocol). */
  toolReview?: ToolReviewOptions;
}

/** An option `createReactAgent` does not know (a misspelling, or one from another version). */
export class UnsupportedAgentOptionError extends InterludeError {
  constructor(option: string) {
    super(
      "UNSUPPORTED_AGENT_OPTION",
      `createReactAgent has no option "${option}". Check its spelling against CreateReactAgentParams, or build the graph with StateGraph, ToolNode and toolsCondition.`,
    );
  }
}

const OPTIONS = new Set<string>([
  "llm",
  "tools",
  "prompt",
  "stateModifier",
  "messageModifier",
  "stateSchema",
  "contextSchema",
  "checkpointer",
  "checkpointSaver",
  "interruptBefore",
  "interruptAfter",
  "store",
  "responseFormat",
  "preModelHook",
  "postModelHook",
  "name",
  "description",
  "version",
  "includeAgentName",
  "toolReview",
] satisfies Array<keyof CreateReactAgentParams>);

/** The state of `createReactAgent`: messages, and the structured response. */
export function createReactAgentAnnotation() {
  return Annotation.Root({
    messages: Annotation<BaseMessage[], Messages>({ reducer: messagesStateReducer, default: () => [] }),
    structuredResponse: Annotation<Record<string, unknown>>(),
  });
}

/** What a pre-model hook may add: the messages the model reads this time (replacing, not appending). */
const llmInputMessages = () =>
  Annotation<BaseMessage[], Messages>({ reducer: (_, update) => messagesStateReducer([], update), default: () => [] });

export function createReactAgent<A = undefined, R extends Record<string, any> = Record<string, any>>(
  params: CreateReactAgentParams<A, R>,
): CompiledStateGraph<AgentState<A, R>, AgentUpdate<A>, AgentNode, AgentUpdate<A>> {
  for (const key of Object.keys(params)) if (!OPTIONS.has(key)) throw new UnsupportedAgentOptionError(key);
  const { llm, responseFormat, preModelHook, postModelHook, name, version = "v1", includeAgentName } = params;
  const toolNode =
    params.tools instanceof ToolNode
      ? params.tools
      : new ToolNode((params.tools as readonly unknown[]).filter((t) => Runnable.isRunnable(t)) as ToolLike[]);
  const allTools = (params.tools instanceof ToolNode ? params.tools.tools : params.tools) as readonly ToolLike[];
  const prompt = agentPrompt(params.prompt, params.stateModifier, params.messageModifier);
  const named = (model: ModelLike) => (includeAgentName === "inline" ? withAgentName(model, includeAgentName) : model);
  let staticModel: Promise<Runnable> | undefined;
  const modelFor = (state: unknown, config: unknown): Promise<Runnable> =>
    typeof llm === "function"
      ? Promise.resolve((llm as (s: unknown, c: unknown) => ModelLike)(state, config)).then((m) =>
          prompt.pipe(named(m)),
        )
      : (staticModel ??= withAgentTools(llm, allTools).then((m) => prompt.pipe(named(m))));

  const callModel = async (state: Record<string, unknown>, config: unknown) => {
    const { messages, llmInputMessages: given, ...rest } = state;
    const input = { messages: Array.isArray(given) && given.length > 0 ? given : messages, ...rest };
    const response = (await (await modelFor(state, config)).invoke(input, config as never)) as AIMessage;
    response.name = name;
    response.lc_kwargs.name = name;
    return { messages: [response] };
  };

  const generateStructuredResponse = async (state: { messages: BaseMessage[] }, config: unknown) => {
    const messages = [...state.messages];
    const model = await chatModelOf(typeof llm === "function" ? await (llm as any)(state, config) : llm);
    let structured: Runnable;
    if (typeof responseFormat === "object" && responseFormat !== null && "schema" in responseFormat) {
      const { prompt: system, schema, ...options } = responseFormat as { schema: unknown; prompt?: string };
      structured = model.withStructuredOutput(schema, options);
      if (system != null) messages.unshift(new SystemMessage({ content: system }));
    } else structured = model.withStructuredOutput(responseFormat);
    const response = await structured.invoke(messages, config as never);
    if (response == null)
      throw new AgentModelError(
        "Failed to parse structured response against the provided `responseFormat` schema: the structured-output parser returned null/undefined, which usually means the model output did not satisfy the schema.",
      );
    return { structuredResponse: response };
  };

  // Typed loosely: the nodes are added conditionally, which the builder's node-name type cannot follow.
  const graph: StateGraph<any, string> = new StateGraph(
    (params.stateSchema ?? createReactAgentAnnotation()) as any,
    params.contextSchema,
  );
  if (!("messages" in graph.spec)) throw new AgentModelError("Missing required `messages` key in state schema.");
  graph.addNode("tools", toolNode);
  const entry = preModelHook ? "pre_model_hook" : "agent";
  if (preModelHook) graph.addNode("pre_model_hook", preModelHook as never).addEdge("pre_model_hook", "agent");
  const agentInput = preModelHook
    ? Annotation.Root({ ...graph.spec, llmInputMessages: llmInputMessages() })
    : undefined;
  graph.addNode("agent", callModel, agentInput ? { input: agentInput } : {}).addEdge(START, entry);
  const review = params.toolReview;
  const finish = responseFormat !== undefined ? "generate_structured_response" : END;
  /** Where the model's tool calls go: the reviewer, the tools node, or one task per call (v2). */
  const toTools = (state: Record<string, unknown>, calls: readonly { id?: string }[]) =>
    review
      ? "review"
      : version === "v2"
        ? calls.map((call) => new Send("tools", { ...state, lg_tool_call: call }))
        : "tools";
  const targets = [review ? "review" : "tools", finish];

  if (postModelHook) {
    graph
      .addNode("post_model_hook", postModelHook as never)
      .addEdge("agent", "post_model_hook")
      .addConditionalEdges(
        "post_model_hook",
        (state: any) => {
          const messages = state.messages as BaseMessage[];
          const pending = pendingToolCalls(messages);
          if (pending.length > 0) return toTools(state, pending);
          if (ToolMessage.isInstance(messages.at(-1))) return entry;
          return finish;
        },
        [...targets, entry],
      );
  } else {
    graph.addConditionalEdges(
      "agent",
      (state: any) => {
        const last = (state.messages as BaseMessage[]).at(-1) as AIMessage | undefined;
        return last && isAIMessage(last) && last.tool_calls?.length ? toTools(state, last.tool_calls) : finish;
      },
      targets,
    );
  }
  if (responseFormat !== undefined)
    graph
      .addNode("generate_structured_response", generateStructuredResponse)
      .addEdge("generate_structured_response", END);
  if (review)
    graph
      .addNode("review", createToolReviewNode(review))
      .addConditionalEdges("review", reviewCondition("tools", entry), ["tools", entry]);

  // A tool marked returnDirect ends the run with its message.
  const direct = new Set(toolNode.tools.filter((tool) => tool.returnDirect).map((tool) => tool.name));
  if (direct.size > 0)
    graph.addConditionalEdges(
      "tools",
      (state: any) => {
        for (const message of [...(state.messages as BaseMessage[])].reverse()) {
          if (!ToolMessage.isInstance(message)) break;
          if (message.name !== undefined && direct.has(message.name)) return END;
        }
        return entry;
      },
      [entry, END],
    );
  else graph.addEdge("tools", entry);

  // The builder is typed loosely (above); the agent's own type says what invoke takes and returns.
  return graph.compile({
    checkpointer: params.checkpointer ?? params.checkpointSaver,
    interruptBefore: params.interruptBefore,
    interruptAfter: params.interruptAfter,
    store: params.store,
    name,
    description: params.description,
  }) as CompiledStateGraph<any, any, any>;
}
