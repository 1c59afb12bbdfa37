/**
 * LangGraph.js's first prebuilt agents, deprecated there and kept for code written against them:
 * `ToolExecutor` (runs a named tool), `createAgentExecutor` (a LangChain agent's actions until it
 * finishes) and `createFunctionCallingExecutor` (a model bound to OpenAI functions). New code
 * wants `createReactAgent` and `ToolNode`.
 */
import type { AgentAction, AgentFinish } from "@langchain/core/agents";
import { type BaseMessage, FunctionMessage } from "@langchain/core/messages";
import { RunnableLambda } from "@langchain/core/runnables";
import { convertToOpenAIFunction } from "@langchain/core/utils/function_calling";
import { END, START } from "../constants.js";
import { Annotation } from "../graph/annotation.js";
import type { RunnableLike } from "../graph/runnable.js";
import { StateGraph } from "../graph/state-graph.js";
import { AgentModelError } from "./agent-model.js";

/** A tool as these executors call it: by name, with its input. */
interface NamedTool {
  name: string;
  invoke(input: any, config?: any): Promise<unknown>;
}

export interface ToolInvocation {
  tool: string;
  toolInput: unknown;
}

export interface ToolExecutorArgs {
  tools: NamedTool[];
  /** What an unknown tool's call returns; `{requestedToolName}` and `{availableToolNamesString}` are filled in. */
  invalidToolMsgTemplate?: string;
}

const INVALID_TOOL = "{requestedToolName} is not a valid tool, try one of {availableToolNamesString}.";

/** Runs the tool an invocation names (`{ tool, toolInput }`); an unknown name gives a message, not an error. */
export class ToolExecutor extends RunnableLambda<ToolInvocation, unknown> {
  readonly lc_graph_name = "ToolExecutor";
  readonly tools: NamedTool[];
  readonly toolMap: Record<string, NamedTool>;
  readonly invalidToolMsgTemplate: string;

  constructor({ tools, invalidToolMsgTemplate = INVALID_TOOL }: ToolExecutorArgs) {
    const toolMap = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    super({
      func: (invocation: ToolInvocation, config?: unknown) => {
        const tool = toolMap[invocation.tool];
        if (tool) return tool.invoke(invocation.toolInput, config);
        return invalidToolMsgTemplate
          .replace("{requestedToolName}", invocation.tool)
          .replace("{availableToolNamesString}", Object.keys(toolMap).join(", "));
      },
    });
    this.tools = tools;
    this.toolMap = toolMap;
    this.invalidToolMsgTemplate = invalidToolMsgTemplate;
  }
}

const executorOf = (tools: NamedTool[] | ToolExecutor) =>
  tools instanceof ToolExecutor ? tools : new ToolExecutor({ tools });

const appended = <T>(a: T[], b: T[]) => a.concat(b);

export interface AgentStep {
  action: AgentAction | AgentFinish;
  observation: unknown;
}

/** A LangChain agent (a Runnable giving an `AgentAction` or an `AgentFinish`) run with its tools until it finishes. */
export function createAgentExecutor({
  agentRunnable,
  tools,
}: {
  agentRunnable: RunnableLike;
  tools: NamedTool[] | ToolExecutor;
}) {
  const executor = executorOf(tools);
  const State = Annotation.Root({
    input: Annotation<string>(),
    agentOutcome: Annotation<AgentAction | AgentFinish | undefined>(),
    steps: Annotation<AgentStep[]>({ reducer: appended, default: () => [] }),
    chatHistory: Annotation<BaseMessage[] | undefined>(),
  });
  const finished = (outcome: unknown) => typeof outcome === "object" && outcome !== null && "returnValues" in outcome;
  return new StateGraph(State)
    .addNode("agent", async (state, config) => ({ agentOutcome: await agentRunnable.invoke(state, config) }))
    .addNode("action", async (state, config) => {
      const action = state.agentOutcome;
      if (!action || finished(action)) throw new AgentModelError("The agent has not asked for a tool: nothing to run.");
      return { steps: [{ action, observation: await executor.invoke(action as AgentAction, config) }] };
    })
    .addEdge(START, "agent")
    .addConditionalEdges("agent", (state) => (finished(state.agentOutcome) ? "end" : "continue"), {
      continue: "action",
      end: END,
    })
    .addEdge("action", "agent")
    .compile();
}

/** A model bound to the tools as OpenAI functions, calling them (`function_call`) until it answers. */
export function createFunctionCallingExecutor({ model, tools }: { model: object; tools: NamedTool[] | ToolExecutor }) {
  const executor = executorOf(tools);
  const bind = (model as { bind?: (args: unknown) => RunnableLike }).bind;
  // As LangGraph.js: LangChain 1's chat models have no bind() (bindTools is createReactAgent's way).
  if (typeof bind !== "function")
    throw new AgentModelError("Model must be bindable: createFunctionCallingExecutor calls model.bind({ functions }).");
  const bound = bind.call(model, { functions: executor.tools.map((tool) => convertToOpenAIFunction(tool as never)) });
  const State = Annotation.Root({ messages: Annotation<BaseMessage[]>({ reducer: appended, default: () => [] }) });
  const callOf = (messages: BaseMessage[]) => messages.at(-1)?.additional_kwargs.function_call;
  return new StateGraph(State)
    .addNode("agent", async (state, config) => ({
      messages: [(await bound.invoke(state.messages, config)) as BaseMessage],
    }))
    .addNode("action", async (state, config) => {
      const call = callOf(state.messages);
      if (!call) throw new AgentModelError("The last message calls no function: nothing to run.");
      const action = { tool: call.name, toolInput: JSON.stringify(call.arguments), log: "" };
      const content = (await executor.invoke(action, config)) as string;
      return { messages: [new FunctionMessage({ content, name: call.name })] };
    })
    .addEdge(START, "agent")
    .addConditionalEdges("agent", (state) => (callOf(state.messages) ? "continue" : "end"), {
      continue: "action",
      end: END,
    })
    .addEdge("action", "agent")
    .compile();
}
