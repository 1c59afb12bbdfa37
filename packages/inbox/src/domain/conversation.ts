/**
 * A thread's `messages` state read as a conversation: who said what, the tool calls an AI
 * message made, and each call's result beside it. Messages come in LangGraph Server's wire
 * shape (`{ type: "ai", content, tool_calls }`); LangChain's serialised form and `{ role }`
 * objects are read too, since a graph may store either.
 */

export type Role = "human" | "ai" | "system" | "tool";

export interface ChatToolCall {
  id?: string;
  name: string;
  args: unknown;
  /** The ToolMessage that answered it, once there is one. */
  result?: ChatMessage;
}

export interface ChatMessage {
  id?: string;
  role: Role;
  text: string;
  name?: string;
  toolCalls: ChatToolCall[];
  /** On a tool result: the call it answers, and whether the tool failed. */
  toolCallId?: string;
  failed?: boolean;
}

const ROLE: Record<string, Role> = {
  human: "human",
  user: "human",
  ai: "ai",
  assistant: "ai",
  system: "system",
  developer: "system",
  tool: "tool",
};

const CLASS_ROLE: Record<string, Role> = {
  HumanMessage: "human",
  AIMessage: "ai",
  SystemMessage: "system",
  ToolMessage: "tool",
};

type Raw = Record<string, unknown>;
const isObject = (v: unknown): v is Raw => typeof v === "object" && v !== null && !Array.isArray(v);

/** The message's fields and role, whichever of the three shapes it has. */
function unwrap(value: unknown): { fields: Raw; role: Role } | undefined {
  if (!isObject(value)) return undefined;
  if (value.lc === 1 && value.type === "constructor" && Array.isArray(value.id) && isObject(value.kwargs)) {
    const cls = String(value.id.at(-1)).replace(/Chunk$/, "");
    const role = CLASS_ROLE[cls];
    return role ? { fields: value.kwargs, role } : undefined;
  }
  if (!("content" in value)) return undefined;
  const role = ROLE[String(value.type ?? value.role)];
  return role ? { fields: value, role } : undefined;
}

/** Text of a message's content: a string, or the text blocks of a list (other blocks named). */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return content == null ? "" : JSON.stringify(content);
  return content
    .map((block) => {
      if (typeof block === "string") return block;
      if (isObject(block) && typeof block.text === "string") return block.text;
      return isObject(block) && typeof block.type === "string" ? `[${block.type}]` : "";
    })
    .filter(Boolean)
    .join("\n");
}

function toolCallsOf(fields: Raw): ChatToolCall[] {
  const calls = Array.isArray(fields.tool_calls) ? fields.tool_calls : [];
  return calls.filter(isObject).map((c) => {
    const call: ChatToolCall = { name: String(c.name ?? "?"), args: c.args ?? {} };
    if (typeof c.id === "string") call.id = c.id;
    return call;
  });
}

function toMessage(value: unknown): ChatMessage | undefined {
  const m = unwrap(value);
  if (!m) return undefined;
  const { fields, role } = m;
  const message: ChatMessage = {
    role,
    text: textOf(fields.content),
    toolCalls: role === "ai" ? toolCallsOf(fields) : [],
  };
  if (typeof fields.id === "string") message.id = fields.id;
  if (typeof fields.name === "string") message.name = fields.name;
  if (role === "tool") {
    if (typeof fields.tool_call_id === "string") message.toolCallId = fields.tool_call_id;
    if (fields.status === "error") message.failed = true;
  }
  return message;
}

/**
 * The conversation in a thread's values, or undefined when they hold no `messages` list of
 * messages. Tool results are attached to the calls they answer; a result whose call is not
 * in the list stays a message of its own.
 */
export function conversationOf(values: unknown): ChatMessage[] | undefined {
  const list = isObject(values) ? values.messages : undefined;
  if (!Array.isArray(list) || list.length === 0) return undefined;
  const messages = list.map(toMessage);
  if (messages.some((m) => !m)) return undefined;
  const calls = new Map<string, ChatToolCall>();
  const out: ChatMessage[] = [];
  for (const m of messages as ChatMessage[]) {
    for (const call of m.toolCalls) if (call.id) calls.set(call.id, call);
    const call = m.role === "tool" && m.toolCallId ? calls.get(m.toolCallId) : undefined;
    if (call) call.result = m;
    else out.push(m);
  }
  return out;
}
