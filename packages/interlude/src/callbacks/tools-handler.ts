/**
 * Stream mode `"tools"`, as LangGraph's: a LangChain callback handler that reports each tool
 * call a node makes (`on_tool_start` with its input, `on_tool_event` for what a streaming tool
 * yields, `on_tool_end` with its output, `on_tool_error`), with the tool call's id, in the
 * namespace of the graph whose node called it.
 */
import type { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { LangChain } from "../langchain/typed.js";
import type { EventPlace } from "./namespace.js";
import type { ToolEvent } from "./tool-event.js";

/** Interrupts and cancellations unwind through tools; they are not tool errors. */
const isControlFlow = (error: unknown) =>
  error instanceof Error && ["GraphInterrupt", "NodeInterrupt", "GraphDrained", "AbortError"].includes(error.name);

/** `place`: where the stream tells a tool's events (callbacks/namespace.ts). */
export function createToolsHandler(
  lc: LangChain,
  emit: (ns: string, event: ToolEvent) => void,
  place: EventPlace,
): BaseCallbackHandler {
  class StreamToolsHandler extends lc.BaseCallbackHandler {
    name = "StreamToolsHandler";
    /** The tool's start is reported before it returns. */
    override awaitHandlers = true;
    private readonly calls = new Map<string, { ns: string; toolCallId?: string; name: string }>();

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
      const ns = place(metadata);
      if (ns === undefined || tags?.includes("langsmith:hidden")) return;
      const call = { ns, toolCallId, name: runName ?? "unknown" };
      this.calls.set(runId, call);
      emit(ns, { event: "on_tool_start", toolCallId, name: call.name, input });
    }

    override handleToolEvent(data: unknown, runId: string): void {
      const call = this.calls.get(runId);
      if (call) emit(call.ns, { event: "on_tool_event", toolCallId: call.toolCallId, name: call.name, data });
    }

    override handleToolEnd(output: unknown, runId: string): void {
      const call = this.calls.get(runId);
      if (!call) return;
      this.calls.delete(runId);
      emit(call.ns, { event: "on_tool_end", toolCallId: call.toolCallId, name: call.name, output });
    }

    override handleToolError(error: unknown, runId: string): void {
      const call = this.calls.get(runId);
      if (!call) return;
      this.calls.delete(runId);
      if (!isControlFlow(error))
        emit(call.ns, { event: "on_tool_error", toolCallId: call.toolCallId, name: call.name, error });
    }
  }
  return new StreamToolsHandler();
}
