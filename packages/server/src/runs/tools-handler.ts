/**
 * Stream mode `tools`, as LangGraph's: a LangChain callback handler that reports each tool call a
 * node makes (`on_tool_start` with its input, `on_tool_end` with its output, `on_tool_error`),
 * with the tool call's id, in the namespace of the graph whose node called it.
 * `@langchain/core` is loaded only when a run asks for the mode (graphs with tools have it).
 */
import { toWire } from "../wire/messages.js";

export type ToolEvent =
  | { event: "on_tool_start"; toolCallId?: string; name: string; input: unknown }
  | { event: "on_tool_end"; toolCallId?: string; name: string; output: unknown }
  | { event: "on_tool_error"; toolCallId?: string; name: string; error: { error: string; message: string } };

/** The namespace of the graph a task runs in: its checkpoint namespace less the task's own segment. */
function toolNamespace(metadata: Record<string, unknown> | undefined): string[] | undefined {
  const ns = (metadata?.langgraph_checkpoint_ns ?? metadata?.checkpoint_ns) as string | undefined;
  if (ns === undefined) return undefined;
  let segments = 1;
  let path = metadata?.langgraph_path;
  // A `task()` call nested in a node adds a segment of its own (its path ends in `true`).
  while (Array.isArray(path) && path[0] === "__pregel_push" && path[path.length - 1] === true) {
    segments++;
    path = path[1];
  }
  const parts = ns.split("|");
  return parts.slice(0, Math.max(parts.length - segments, 0));
}

/** Interrupts and cancellations unwind through tools; they are not tool errors. */
const isControlFlow = (error: unknown) =>
  error instanceof Error && ["GraphInterrupt", "NodeInterrupt", "AbortError"].includes(error.name);

export async function createToolsHandler(emit: (ns: string[], event: ToolEvent) => void): Promise<unknown> {
  const { BaseCallbackHandler } = await import("@langchain/core/callbacks/base");
  class StreamToolsHandler extends BaseCallbackHandler {
    name = "StreamToolsHandler";
    /** The tool's start is reported before it returns. */
    override awaitHandlers = true;
    private readonly calls = new Map<string, { ns: string[]; toolCallId?: string; name: string }>();

    override handleToolStart(
      _tool: unknown,
      input: string,
      runId: string,
      _parentRunId?: string,
      tags?: string[],
      metadata?: Record<string, unknown>,
      runName?: string,
      toolCallId?: string,
    ): void {
      const ns = toolNamespace(metadata);
      if (!ns || tags?.includes("langsmith:hidden")) return;
      const call = { ns, toolCallId, name: runName ?? "unknown" };
      this.calls.set(runId, call);
      emit(ns, { event: "on_tool_start", toolCallId, name: call.name, input });
    }

    override handleToolEnd(output: unknown, runId: string): void {
      const call = this.calls.get(runId);
      if (!call) return;
      this.calls.delete(runId);
      // Copied as it is now: the graph goes on to give the tool message an id, and this event is
      // sent (or stored for other servers) a little later.
      emit(call.ns, { event: "on_tool_end", toolCallId: call.toolCallId, name: call.name, output: toWire(output) });
    }

    override handleToolError(error: unknown, runId: string): void {
      const call = this.calls.get(runId);
      if (!call) return;
      this.calls.delete(runId);
      if (isControlFlow(error)) return;
      const e =
        error instanceof Error
          ? { error: error.name, message: error.message }
          : { error: "Error", message: String(error) };
      emit(call.ns, { event: "on_tool_error", toolCallId: call.toolCallId, name: call.name, error: e });
    }
  }
  return new StreamToolsHandler();
}
