/**
 * Messages as both runtimes must agree on them: type, content, name, tool calls (their ids are
 * the script's own), and a tool message's call, status and artifact; not the ids a state gives.
 */
import type { AIMessage, BaseMessage, ToolMessage } from "@langchain/core/messages";

export function view(m: BaseMessage) {
  const out: Record<string, unknown> = { type: m.getType(), content: m.content };
  if (m.name !== undefined) out.name = m.name;
  const calls = (m as AIMessage).tool_calls;
  if (calls?.length) out.calls = calls.map((c) => [c.name, c.args, c.id]);
  if (m.getType() === "tool") {
    const t = m as ToolMessage;
    out.for = t.tool_call_id;
    out.status = t.status ?? null;
    if (t.artifact !== undefined) out.artifact = t.artifact;
  }
  return out;
}

export const views = (messages: BaseMessage[]) => messages.map(view);
