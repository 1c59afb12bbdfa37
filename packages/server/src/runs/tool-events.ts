/**
 * Stream mode `tools` on the wire: the core's tool events (`@interlude/core`'s stream mode
 * "tools") with the tool's output as a serialised message and its error as `{ error, message }`,
 * as LangGraph's server sends them.
 */
import type { ToolEvent } from "@interlude/core";
import { toWire } from "../wire/messages.js";

export function wireToolEvent(event: ToolEvent): unknown {
  if (event.event === "on_tool_end") return { ...event, output: toWire(event.output) };
  if (event.event !== "on_tool_error") return event;
  const { error } = event;
  return {
    ...event,
    error:
      error instanceof Error
        ? { error: error.name, message: error.message }
        : { error: "Error", message: String(error) },
  };
}
