/** What stream mode `"tools"` tells of a tool call (callbacks/tools-handler.ts); apart, so the root entry's types need no LangChain. */
export type ToolEvent =
  | { event: "on_tool_start"; toolCallId?: string; name: string; input: unknown }
  | { event: "on_tool_event"; toolCallId?: string; name: string; data: unknown }
  | { event: "on_tool_end"; toolCallId?: string; name: string; output: unknown }
  | { event: "on_tool_error"; toolCallId?: string; name: string; error: unknown };
