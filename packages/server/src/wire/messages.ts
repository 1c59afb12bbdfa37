/**
 * Messages on the wire as LangGraph Server sends them: `{ type: "ai", content, id, tool_calls, ... }`,
 * not LangChain's serialised form `{ lc: 1, type: "constructor", id: [..., "AIMessage"], kwargs }`.
 * Both a live message (whose `toJSON()` gives the LangChain form) and one read back from storage
 * (already in that form) are converted, so the conversion sits at the output edge, once.
 */

/** LangChain class names of messages (and their chunks) and their wire `type`. */
const TYPE_OF_CLASS: Record<string, string> = {
  HumanMessage: "human",
  AIMessage: "ai",
  SystemMessage: "system",
  ToolMessage: "tool",
  ChatMessage: "generic",
  FunctionMessage: "function",
  RemoveMessage: "remove",
};

interface LangChainSerialised {
  lc: number;
  type: string;
  id: string[];
  kwargs: Record<string, unknown>;
}

/** The wire type of a LangChain-serialised message, or undefined when `value` is not one. */
function serialisedMessageType(value: unknown): string | undefined {
  const v = value as LangChainSerialised;
  if (typeof v !== "object" || v === null || v.lc !== 1 || v.type !== "constructor" || !Array.isArray(v.id))
    return undefined;
  const name = String(v.id.at(-1));
  return TYPE_OF_CLASS[name.endsWith("Chunk") ? name.slice(0, -"Chunk".length) : name];
}

/** Whether `value` is a message in LangChain's serialised form (which the wire rewrites). */
export function isSerialisedMessage(value: unknown): boolean {
  return serialisedMessageType(value) !== undefined;
}

function replacer(this: unknown, _key: string, value: unknown): unknown {
  const type = serialisedMessageType(value);
  return type === undefined ? value : { ...(value as LangChainSerialised).kwargs, type };
}

/** Nesting past which `mayHoldMessage` stops looking and says yes (the replacer then decides, and meets any cycle). */
const LOOK_DEPTH = 64;

/**
 * Whether JSON.stringify could meet a LangChain form in `value`: an object with `lc: 1`, or one
 * with a `toJSON` (a live message writes itself in that form), at any depth. A plain state (a
 * run's values, an interrupt) is walked for a few microseconds; the replacer would be called
 * back from the serialiser for every key and value in it, which costs more than the walk.
 */
function mayHoldMessage(value: object, depth: number): boolean {
  if (depth > LOOK_DEPTH) return true;
  if (Array.isArray(value)) {
    for (const item of value)
      if (typeof item === "object" && item !== null && mayHoldMessage(item, depth + 1)) return true;
    return false;
  }
  const record = value as Record<string, unknown>;
  if (record.lc === 1 || typeof record.toJSON === "function") return true;
  for (const key in record) {
    const item = record[key];
    if (typeof item === "object" && item !== null && mayHoldMessage(item, depth + 1)) return true;
  }
  return false;
}

/**
 * JSON text of `value` with every message in LangGraph Server's shape. `mostlyPlain`: the value
 * rarely holds a LangChain form (a token's `[chunk, metadata]`, the chunk already in wire
 * shape), so it is written without the replacer (half the cost) and again with it only when the
 * text shows a LangChain form: such a form always writes as `{"lc":1,`, and inside a JSON
 * string the quotes would be escaped. Otherwise the replacer runs only when a walk of the
 * value finds something it could change.
 */
export function wireJson(value: unknown, mostlyPlain = false): string {
  if (mostlyPlain) {
    const text = JSON.stringify(value);
    if (!text.includes('"lc":1')) return text;
  } else if (typeof value !== "object" || value === null || !mayHoldMessage(value, 0)) return JSON.stringify(value);
  return JSON.stringify(value, replacer);
}

/** `value` with every message in LangGraph Server's shape, as plain data (`value` itself when it has none). */
export function toWire(value: unknown): unknown {
  let found = false;
  const text = JSON.stringify(value, (_key, v) => {
    const type = serialisedMessageType(v);
    if (type === undefined) return v;
    found = true;
    return { ...(v as LangChainSerialised).kwargs, type };
  });
  return found ? JSON.parse(text) : value;
}

/** Field names seen with no capital letter (toJSON() would rename the others to snake_case). */
const SNAKE_KEYS = new Set<string>();

interface LangChainMessage {
  lc_serializable?: boolean;
  lc_kwargs?: Record<string, unknown>;
  type?: unknown;
}

/**
 * A live LangChain message in LangGraph Server's shape, read straight from its fields: what
 * `toWire` gives for it, at a fifth of the cost (`toJSON()` walks the class chain for aliases and
 * secrets on every call; a streamed token pays it once per token). A message this reading cannot
 * vouch for (not serialisable, camelCase fields to rename) goes through `toWire`.
 */
export function wireMessage(message: unknown): unknown {
  const m = message as LangChainMessage;
  const kwargs = m?.lc_kwargs;
  if (m?.lc_serializable !== true || typeof kwargs !== "object" || kwargs === null || typeof m.type !== "string")
    return toWire(message);
  const out: Record<string, unknown> = {};
  for (const key in kwargs) {
    if (!SNAKE_KEYS.has(key)) {
      if (/[A-Z]/.test(key)) return toWire(message);
      SNAKE_KEYS.add(key);
    }
    out[key] = key in m ? (m as Record<string, unknown>)[key] : kwargs[key];
  }
  out.type = m.type;
  return out;
}
