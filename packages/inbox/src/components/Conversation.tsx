/** A thread's messages as a conversation: each turn, the tool calls an AI turn made and their results. */
import type { ChatMessage, ChatToolCall, Role } from "../domain/conversation";
import { JsonView } from "./JsonView";
import { Markdown } from "./Markdown";

const SPEAKER: Record<Role, string> = { human: "User", ai: "Assistant", system: "System", tool: "Tool result" };

export function Conversation({ messages }: { messages: ChatMessage[] }) {
  return (
    <ol class="conversation" aria-label="Conversation">
      {messages.map((m, i) => (
        <li key={m.id ?? i} class={`msg ${m.role}`}>
          <p class="speaker">
            {SPEAKER[m.role]}
            {m.name ? <span class="muted"> · {m.name}</span> : null}
          </p>
          {m.role === "tool" ? <ToolOutput message={m} /> : m.text && <Markdown text={m.text} />}
          {m.toolCalls.map((call, j) => (
            <ToolUse key={call.id ?? j} call={call} />
          ))}
        </li>
      ))}
    </ol>
  );
}

function ToolUse({ call }: { call: ChatToolCall }) {
  return (
    <div class="tool-use" data-tool={call.name}>
      <p class="tool-use-head">
        <span class="muted small">calls</span> <code>{call.name}</code>
      </p>
      <JsonView value={call.args} open={1} label={`Arguments of ${call.name}`} />
      {call.result ? <ToolOutput message={call.result} /> : <p class="muted small">No result yet.</p>}
    </div>
  );
}

function ToolOutput({ message }: { message: ChatMessage }) {
  return (
    <div class={message.failed ? "tool-output failed" : "tool-output"}>
      <span class="small">{message.failed ? "Not run / failed" : "Result"}</span>
      <pre>{message.text}</pre>
    </div>
  );
}
