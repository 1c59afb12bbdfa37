/**
 * `ToolNode` runs the tool calls of the last AI message; `toolsCondition` routes to it when
 * there are any. LangGraph.js's prebuilt semantics: the node takes the state, a list of
 * messages, or one call sent to it (`Send("tools", { ...state, lg_tool_call })`), gives each
 * tool the state and the run's context and store, and returns `{ messages: ToolMessage[] }`
 * (or the list), with the Commands tools returned. Interlude adds: inside a graph with a
 * checkpointer each call's result is saved as soon as it is known, so a resumed node (a tool
 * that asked a human) does not call the others again.
 */
import { type BaseMessage, isAIMessage, isBaseMessage, ToolMessage } from "@langchain/core/messages";
import type { ToolCall } from "@langchain/core/messages/tool";
import { Runnable } from "@langchain/core/runnables";
import { END } from "../constants.js";
import { InterludeError } from "../errors/base.js";
import { refuseUnknownGraphOptions } from "../errors/options.js";
import { isGraphDrained, isGraphInterrupt } from "../interrupt/signal.js";
import { recordedCall } from "../interrupt/task.js";
import { Command, isCommand } from "../primitives/command.js";
import { isSend, type Send } from "../primitives/send.js";
import { currentTask } from "../runner/scope.js";

/** A tool as `ToolNode` uses it: LangChain's `StructuredTool`, `tool(...)`, or anything shaped so. */
export interface ToolLike {
  name: string;
  invoke(input: ToolCall, config?: unknown): unknown;
  returnDirect?: boolean;
}

export interface ToolNodeOptions {
  name?: string;
  /** Tags added to the tools' runs (traces, stream events). */
  tags?: string[];
  /** Turn a tool's error into a ToolMessage the model can read (default true), or rethrow it. */
  handleToolErrors?: boolean;
}

/** ToolNode was given something other than messages, a state with messages, or a sent call. */
export class ToolNodeInputError extends InterludeError {
  constructor(what: string) {
    super(
      "GRAPH_VALUE",
      `ToolNode ${what}. Give it the state ({ messages }), a list of messages ending with an AI message, or Send("tools", { ...state, lg_tool_call }).`,
    );
  }
}

type MessagesInput = BaseMessage[] | { messages: BaseMessage[] };
type SentCall = { lg_tool_call: ToolCall } & Record<string, unknown>;

const isSentCall = (input: unknown): input is SentCall =>
  typeof input === "object" && input !== null && "lg_tool_call" in input;

function messagesOf(input: unknown): BaseMessage[] | undefined {
  if (Array.isArray(input)) return input.every((m) => isBaseMessage(m)) ? input : undefined;
  const messages = (input as { messages?: unknown } | null)?.messages;
  return Array.isArray(messages) ? (messages as BaseMessage[]) : undefined;
}

/** The last AI message's calls that no ToolMessage has answered yet. */
export function pendingToolCalls(messages: readonly BaseMessage[]): ToolCall[] {
  const index = messages.findLastIndex((m) => isAIMessage(m));
  if (index < 0) return [];
  const answered = new Set<string>();
  for (const message of messages) if (ToolMessage.isInstance(message)) answered.add(message.tool_call_id);
  const calls = (messages[index] as { tool_calls?: ToolCall[] }).tool_calls ?? [];
  return calls.filter((call) => call.id == null || !answered.has(call.id));
}

type ToolOutput = ToolMessage | Command;

/**
 * A LangChain Runnable, as LangGraph.js's ToolNode is: `batch`, `stream`, `pipe`, `withConfig`,
 * `withRetry` and LCEL sequences take it as they take any Runnable.
 */
export class ToolNode extends Runnable<any, any> {
  lc_namespace = ["langgraph", "prebuilt"];
  override readonly name: string;
  readonly tags?: string[];
  readonly tools: readonly ToolLike[];
  readonly handleToolErrors: boolean;
  private readonly byName: ReadonlyMap<string, ToolLike>;

  constructor(tools: readonly ToolLike[], options: ToolNodeOptions = {}) {
    super();
    refuseUnknownGraphOptions("new ToolNode()", options, ["name", "tags", "handleToolErrors"]);
    this.name = options.name ?? "tools";
    this.tags = options.tags;
    this.tools = tools;
    this.byName = new Map(tools.map((tool) => [tool.name, tool]));
    this.handleToolErrors = options.handleToolErrors ?? true;
  }

  async invoke(input: MessagesInput | SentCall, config?: unknown): Promise<unknown> {
    let calls: ToolCall[];
    let state: unknown = input;
    if (isSentCall(input)) {
      const { lg_tool_call: call, ...rest } = input;
      calls = [call];
      state = rest;
    } else {
      const messages = messagesOf(input);
      if (!messages) throw new ToolNodeInputError("takes a list of messages or a state with messages");
      if (!messages.some((m) => isAIMessage(m)))
        throw new ToolNodeInputError("found no AI message to run the calls of");
      calls = pendingToolCalls(messages);
    }
    // Every call settles before the node stops (a tool may have asked a human with interrupt()),
    // so each finished call's result is saved and a resumed node does not run it again.
    const settled = await Promise.allSettled(calls.map((call) => this.runOnce(call, config, state)));
    const failed = settled.find((result) => result.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;
    const outputs = settled.map((result) => (result as PromiseFulfilledResult<ToolOutput>).value);
    const list = Array.isArray(input);
    if (!outputs.some(isCommand)) return list ? outputs : { messages: outputs };
    return withCommands(outputs, list);
  }

  /** Inside a graph with a checkpointer, a call's result is saved as soon as it is known. */
  private runOnce(call: ToolCall, config: unknown, state: unknown): Promise<ToolOutput> {
    if (!currentTask()?.run.saver) return this.runCall(call, config, state);
    return recordedCall(`tool:${call.name}`, () => this.runCall(call, config, state));
  }

  private async runCall(call: ToolCall, config: any, state: unknown): Promise<ToolOutput> {
    const tool = this.byName.get(call.name);
    try {
      if (!tool) throw new Error(`Tool "${call.name}" not found.`);
      // What LangChain's tools read as their runtime: the state, the call's id, context, store, writer.
      const runtime = {
        ...config,
        // The node's own tags go to its tools' runs, as a Runnable's tags go to its children.
        ...(this.tags?.length ? { tags: [...this.tags, ...(config?.tags ?? [])] } : {}),
        state,
        toolCallId: call.id ?? "",
        config,
        context: config?.context,
        store: config?.store ?? null,
        writer: config?.writer ?? config?.configurable?.writer ?? null,
      };
      const output = await tool.invoke({ ...call, type: "tool_call" }, runtime);
      if (ToolMessage.isInstance(output) || isCommand(output)) return output;
      return new ToolMessage({
        status: "success",
        name: tool.name,
        content: typeof output === "string" ? output : JSON.stringify(output),
        tool_call_id: call.id ?? "",
      });
    } catch (error) {
      if (!this.handleToolErrors || isGraphInterrupt(error) || isGraphDrained(error)) throw error;
      return new ToolMessage({
        status: "error",
        content: `Error: ${(error as Error)?.message}\n Please fix your mistakes.`,
        name: call.name,
        tool_call_id: call.id ?? "",
      });
    }
  }
}

/**
 * A step's outputs when tools returned Commands, as LangGraph returns them: each Command as it
 * is, each message in an update of its own, and the parent graph's Sends merged into one Command.
 */
function withCommands(outputs: readonly ToolOutput[], list: boolean): unknown[] {
  const combined: unknown[] = [];
  let parentSends: Send[] | undefined;
  for (const output of outputs) {
    if (!isCommand(output)) combined.push(list ? [output] : { messages: [output] });
    else if (output.graph === Command.PARENT && output.goto.length > 0 && output.goto.every((g) => isSend(g)))
      (parentSends ??= []).push(...(output.goto as Send[]));
    else combined.push(output);
  }
  if (parentSends) combined.push(new Command({ graph: Command.PARENT, goto: parentSends }));
  return combined;
}

/** Routes to "tools" when the last message is an AI message with tool calls, else to END. */
export function toolsCondition(state: MessagesInput): "tools" | typeof END {
  // Any message shape, as LangGraph.js: a plain `{ role, tool_calls }` object asks for tools too.
  const messages = Array.isArray(state) ? state : (state as { messages?: unknown } | null)?.messages;
  const last = (Array.isArray(messages) ? messages.at(-1) : undefined) as { tool_calls?: unknown[] } | undefined;
  return last && Array.isArray(last.tool_calls) && last.tool_calls.length > 0 ? "tools" : END;
}
