/**
 * The page's view of a message, from either hook: `@langchain/langgraph-sdk/react` hands plain
 * objects (`{ type, content, tool_calls }`), `@langchain/react` hands LangChain message instances.
 */
export interface ChatMessage {
  id: string;
  role: "human" | "ai" | "tool" | "system" | "other";
  text: string;
  toolCalls: Array<{ id?: string; name: string; args: unknown }>;
  /** A tool message's status: "error" when the call was rejected or failed. */
  status?: string;
}

interface MessageLike {
  id?: string;
  type?: string;
  getType?: () => string;
  _getType?: () => string;
  content?: unknown;
  tool_calls?: Array<{ id?: string; name: string; args: unknown }>;
  status?: string;
}

const ROLES = new Set(["human", "ai", "tool", "system"]);

function roleOf(m: MessageLike): ChatMessage["role"] {
  const type = m.type ?? m.getType?.() ?? m._getType?.() ?? "";
  const role = type === "AIMessageChunk" || type === "user" ? (type === "user" ? "human" : "ai") : type;
  return ROLES.has(role) ? (role as ChatMessage["role"]) : "other";
}

/** Text content: a string, or the text parts of a content array. */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) => (typeof part === "string" ? part : part?.type === "text" ? String(part.text ?? "") : ""))
    .join("");
}

export function toChatMessage(message: unknown, index: number): ChatMessage {
  const m = message as MessageLike;
  return {
    id: m.id ?? `message-${index}`,
    role: roleOf(m),
    text: textOf(m.content),
    toolCalls: m.tool_calls ?? [],
    status: m.status,
  };
}
