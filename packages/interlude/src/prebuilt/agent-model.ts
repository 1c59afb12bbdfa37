/**
 * The model step of `createReactAgent`, as LangGraph.js builds it: the prompt (a string, a
 * system message, a function of the state, or a Runnable, run as a step named "prompt") piped
 * into the model with the agent's tools bound to it, unless they already are. The model found
 * under a binding, a sequence or a configurable model gives the structured response.
 */
import { type BaseMessage, isBaseMessage, SystemMessage } from "@langchain/core/messages";
import { Runnable, RunnableBinding, RunnableLambda, RunnableSequence } from "@langchain/core/runnables";
import { InterludeError } from "../errors/base.js";
import type { ToolLike } from "./tool-node.js";

/** Something `createReactAgent`'s options take as a model, or build one around. */
export type ModelLike = any;

/** A prompt: text, a system message, a function of the state, or a Runnable taking the state. */
export type AgentPrompt =
  | string
  | SystemMessage
  | ((state: any, config?: any) => BaseMessage[] | Promise<BaseMessage[]>)
  | Runnable;

/** `createReactAgent` was given a model or prompt it cannot use. */
export class AgentModelError extends InterludeError {
  constructor(message: string) {
    super("GRAPH_VALIDATION", message);
  }
}

const PROMPT_RUN_NAME = "prompt";

function promptRunnable(prompt: AgentPrompt | undefined): Runnable {
  const named = (fn: (state: any) => unknown) => RunnableLambda.from(fn).withConfig({ runName: PROMPT_RUN_NAME });
  if (prompt == null) return named((state) => state.messages);
  if (typeof prompt === "string") {
    const system = new SystemMessage(prompt);
    return named((state) => [system, ...(state.messages ?? [])]);
  }
  if (isBaseMessage(prompt) && prompt.getType() === "system") return named((state) => [prompt, ...state.messages]);
  if (typeof prompt === "function") return RunnableLambda.from(prompt).withConfig({ runName: PROMPT_RUN_NAME });
  if (Runnable.isRunnable(prompt)) return prompt;
  throw new AgentModelError(
    `createReactAgent's prompt must be text, a SystemMessage, a function or a Runnable (got ${typeof prompt}).`,
  );
}

/** `prompt`, or one of its deprecated spellings (`stateModifier`, `messageModifier`: a function of the messages). */
export function agentPrompt(prompt?: AgentPrompt, stateModifier?: AgentPrompt, messageModifier?: unknown): Runnable {
  if ([prompt, stateModifier, messageModifier].filter((x) => x != null).length > 1)
    throw new AgentModelError("Expected only one of prompt, stateModifier, or messageModifier, got multiple values");
  if (stateModifier != null) return promptRunnable(stateModifier);
  if (messageModifier == null) return promptRunnable(prompt);
  if (typeof messageModifier === "string" || (isBaseMessage(messageModifier) && messageModifier.getType() === "system"))
    return promptRunnable(messageModifier as AgentPrompt);
  if (typeof messageModifier === "function")
    return promptRunnable(async (state: any) =>
      (messageModifier as (m: BaseMessage[]) => BaseMessage[])(state.messages),
    );
  if (Runnable.isRunnable(messageModifier))
    return RunnableLambda.from((state: any) => state.messages).pipe(messageModifier as Runnable);
  throw new AgentModelError(`Unexpected type for messageModifier: ${typeof messageModifier}`);
}

const isChatModel = (model: ModelLike) => model != null && typeof model.invoke === "function" && "_modelType" in model;
const isConfigurable = (model: ModelLike) =>
  model != null && "_queuedMethodOperations" in model && "_model" in model && typeof model._model === "function";
const isModelStep = (step: ModelLike) =>
  RunnableBinding.isRunnableBinding(step) || isChatModel(step) || isConfigurable(step);

/** The tools already bound to `model` (how many, and their names), or undefined when none are. */
function boundTools(model: ModelLike): { count: number; names: Set<string> } | undefined {
  let bound: any[] | undefined = Array.isArray(model.kwargs?.tools)
    ? model.kwargs.tools
    : Array.isArray(model.config?.tools)
      ? model.config.tools
      : undefined;
  if (!bound) return undefined;
  if (bound.length === 1 && "functionDeclarations" in bound[0]) bound = bound[0].functionDeclarations as any[];
  const names = new Set<string>();
  for (const tool of bound) {
    const name = tool.type === "function" ? tool.function?.name : (tool.name ?? tool.toolSpec?.name);
    if (name) names.add(name);
  }
  return { count: bound.length, names };
}

/** Whether the agent binds its tools: not when the model already has them (they must then match). */
async function needsBinding(llm: ModelLike, tools: readonly ToolLike[]): Promise<boolean> {
  let model = llm;
  if (RunnableSequence.isRunnableSequence(model)) model = model.steps.find(isModelStep) ?? model;
  if (isConfigurable(model)) model = await model._model();
  if (!RunnableBinding.isRunnableBinding(model)) return true;
  const bound = boundTools(model);
  if (!bound) return true;
  if (bound.count !== tools.length)
    throw new AgentModelError(
      "Number of tools in the model.bindTools() and tools passed to createReactAgent must match",
    );
  // Server tools (plain objects the provider runs) are bound as they are, and not checked by name.
  const missing = tools
    .filter((tool) => Runnable.isRunnable(tool))
    .map((tool) => tool.name)
    .filter((name) => !bound.names.has(name));
  if (missing.length)
    throw new AgentModelError(
      `Missing tools '${missing}' in the model.bindTools().Tools in the model.bindTools() must match the tools passed to createReactAgent.`,
    );
  return false;
}

function bindDirectly(llm: ModelLike, tools: readonly ToolLike[]): ModelLike | undefined {
  if (isChatModel(llm) && typeof llm.bindTools === "function") return llm.bindTools(tools);
  if (RunnableBinding.isRunnableBinding(llm) && typeof (llm.bound as ModelLike).bindTools === "function") {
    const rebound = (llm.bound as ModelLike).bindTools(tools);
    const inner = RunnableBinding.isRunnableBinding(rebound) ? rebound : undefined;
    return new RunnableBinding({
      bound: inner ? inner.bound : rebound,
      config: { ...llm.config, ...inner?.config },
      kwargs: { ...llm.kwargs, ...inner?.kwargs },
      configFactories: inner?.configFactories ?? llm.configFactories,
    });
  }
  return undefined;
}

/** `llm` with the tools bound, under a configurable model or inside a sequence too. */
async function bindTools(llm: ModelLike, tools: readonly ToolLike[]): Promise<ModelLike> {
  const direct =
    bindDirectly(llm, tools) ?? (isConfigurable(llm) ? bindDirectly(await llm._model(), tools) : undefined);
  if (direct) return direct;
  if (RunnableSequence.isRunnableSequence(llm)) {
    const at = llm.steps.findIndex(isModelStep);
    const bound = at >= 0 ? bindDirectly(llm.steps[at], tools) : undefined;
    if (bound) {
      const steps = llm.steps.slice();
      steps.splice(at, 1, bound);
      return RunnableSequence.from(steps as never);
    }
  }
  // A model without bindTools is used as it is when there are no tools to bind.
  if (tools.length === 0) return llm;
  throw new AgentModelError(`llm ${llm} must define bindTools method.`);
}

/** `llm` with the agent's tools bound, unless they already are. */
export async function withAgentTools(llm: ModelLike, tools: readonly ToolLike[]): Promise<ModelLike> {
  return (await needsBinding(llm, tools)) ? bindTools(llm, tools) : llm;
}

/** The chat model under `llm` (a binding, a sequence or a configurable model), for `withStructuredOutput`. */
export async function chatModelOf(llm: ModelLike): Promise<ModelLike> {
  let model = llm;
  if (RunnableSequence.isRunnableSequence(model)) model = model.steps.find(isModelStep) ?? model;
  if (isConfigurable(model)) model = await model._model();
  if (RunnableBinding.isRunnableBinding(model)) model = model.bound;
  if (!isChatModel(model))
    throw new AgentModelError(
      `Expected \`llm\` to be a ChatModel or RunnableBinding (e.g. llm.bind_tools(...)) with invoke() and generate() methods, got ${model?.constructor?.name}`,
    );
  return model;
}
