/**
 * `ToolNode` runs the tool calls of the last AI message; `toolsCondition` routes to it when
 * there are any. LangGraph.js's prebuilt semantics: the node takes the state (or a list of
 * messages) and returns `{ messages: ToolMessage[] }` (or the list).
 */
import { type BaseMessage, isAIMessage, ToolMessage } from "@langchain/core/messages";
import type { ToolCall } from "@langchain/core/messages/tool";
import { END } from "../constants.js";
import { InterludeError } from "../errors/base.js";
import { isGraphInterrupt } from "../interrupt/signal.js";
import { task } from "../interrupt/task.js";
import { isCommand } from "../primitives/command.js";
import { currentTask } from "../runner/scope.js";

/** A tool as `ToolNode` uses it: LangChain's `StructuredTool`, `tool(...)`, or anything shaped so. */
export interface ToolLike {
  name: string;
  invoke(input: ToolCall, config?: unknown): unknown;
}

export interface ToolNodeOptions {
  name?: string;
  /** Turn a tool's error into a ToolMessage the model can read (default true), or rethrow it. */
  handleToolErrors?: boolean;
}

/** A tool returned something ToolNode cannot put in the state. */
export class ToolOutputError extends InterludeError {
  constructor(tool: string, what: string) {
    super(
      "TOOL_OUTPUT_UNSUPPORTED",
      `Tool "${tool}" returned ${what}; ToolNode in Interlude stores tool results as ToolMessages. Return a string, an object or a ToolMessage.`,
    );
  }
}

type MessagesInput = BaseMessage[] | { messages: BaseMessage[] };

function messagesOf(input: MessagesInput): BaseMessage[] {
  return Array.isArray(input) ? input : input.messages;
}

/** The last AI message and its calls that no ToolMessage after it has answered yet. */
export function pendingToolCalls(messages: readonly BaseMessage[]): ToolCall[] {
  const index = messages.findLastIndex((m) => isAIMessage(m));
  if (index < 0) return [];
  const answered = new Set<string>();
  for (const message of messages.slice(index + 1))
    if (ToolMessage.isInstance(message)) answered.add(message.tool_call_id);
  const calls = (messages[index] as { tool_calls?: ToolCall[] }).tool_calls ?? [];
  return calls.filter((call) => !call.id || !answered.has(call.id));
}

export class ToolNode {
  readonly name: string;
  readonly tools: ReadonlyMap<string, ToolLike>;
  readonly handleToolErrors: boolean;

  constructor(tools: readonly ToolLike[], options: ToolNodeOptions = {}) {
    this.name = options.name ?? "tools";
    this.tools = new Map(tools.map((tool) => [tool.name, tool]));
    this.handleToolErrors = options.handleToolErrors ?? true;
  }

  async invoke(input: MessagesInput, config?: unknown): Promise<BaseMessage[] | { messages: BaseMessage[] }> {
    const calls = pendingToolCalls(messagesOf(input));
    // Every call settles before the node stops (a tool may have asked a human with interrupt()),
    // so each finished call's result is saved and a resumed node does not run it again.
    const settled = await Promise.allSettled(calls.map((call) => this.runOnce(call, config)));
    const failed = settled.find((result) => result.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;
    const results = settled.map((result) => (result as PromiseFulfilledResult<ToolMessage>).value);
    return Array.isArray(input) ? results : { messages: results };
  }

  /**
   * Inside a graph with a checkpointer, a call is a `task()`: its result is saved as soon as it
   * is known, and when the node runs again on resume the saved result is returned instead.
   */
  private runOnce(call: ToolCall, config: unknown): Promise<ToolMessage> {
    if (!currentTask()?.run.saver) return this.runCall(call, config);
    return task(`tool:${call.name}`, () => this.runCall(call, config))();
  }

  private async runCall(call: ToolCall, config: unknown): Promise<ToolMessage> {
    const tool = this.tools.get(call.name);
    if (!tool) {
      const known = [...this.tools.keys()].join(", ");
      return new ToolMessage({
        content: `Error: tool "${call.name}" does not exist. Use one of: ${known}.`,
        name: call.name,
        tool_call_id: call.id ?? "",
        status: "error",
      });
    }
    try {
      const output = await tool.invoke({ ...call, type: "tool_call" }, config);
      return toToolMessage(call, output);
    } catch (error) {
      if (isGraphInterrupt(error) || !this.handleToolErrors || error instanceof ToolOutputError) throw error;
      const text = error instanceof Error ? error.message : String(error);
      return new ToolMessage({
        content: `Error: ${text}\n Please fix your mistakes.`,
        name: call.name,
        tool_call_id: call.id ?? "",
        status: "error",
      });
    }
  }
}

function toToolMessage(call: ToolCall, output: unknown): ToolMessage {
  if (ToolMessage.isInstance(output)) return output;
  if (isCommand(output)) throw new ToolOutputError(call.name, "a Command");
  const content = typeof output === "string" ? output : JSON.stringify(output);
  return new ToolMessage({ content, name: call.name, tool_call_id: call.id ?? "" });
}

/** Routes to "tools" when the last message is an AI message with tool calls, else to END. */
export function toolsCondition(state: MessagesInput): "tools" | typeof END {
  const last = messagesOf(state).at(-1) as { tool_calls?: unknown[] } | undefined;
  return last && Array.isArray(last.tool_calls) && last.tool_calls.length > 0 ? "tools" : END;
}
