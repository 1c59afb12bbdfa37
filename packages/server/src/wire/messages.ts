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

/** Nesting past which `withWireMessages` stops looking (the replacer then decides, and meets any cycle). */
const LOOK_DEPTH = 64;

/**
 * JSON text of `value` with every message in LangGraph Server's shape. `mostlyPlain`: the value
 * rarely holds a LangChain form (a token's `[chunk, metadata]`, the chunk already in wire
 * shape), so it is written without the replacer (half the cost) and again with it only when the
 * text shows a LangChain form: such a form always writes as `{"lc":1,`, and inside a JSON
 * string the quotes would be escaped. Otherwise the messages are put in wire shape before the
 * value is written (`withWireMessages`), and the replacer runs only where that could not look.
 */
export function wireJson(value: unknown, mostlyPlain = false): string {
  if (mostlyPlain) {
    const text = JSON.stringify(value);
    if (!text.includes('"lc":1')) return text;
    return JSON.stringify(value, replacer);
  }
  const unseen = { left: false };
  const wired = withWireMessages(value, 0, unseen);
  return unseen.left ? JSON.stringify(wired, replacer) : JSON.stringify(wired);
}

/**
 * `value` with its messages in wire shape: a live LangChain message as `wireMessage` writes it, a
 * stored LangChain form as the replacer would. The lists and objects holding them are copied,
 * everything else is `value`'s own. A live message's `toJSON`, which JSON.stringify would call,
 * walks its class chain: at a few µs a message it was most of the cost of writing an agent's
 * state. `unseen.left` is set where a message could remain: a value with another `toJSON`
 * (which could return one), or nesting past LOOK_DEPTH.
 */
function withWireMessages(value: unknown, depth: number, unseen: { left: boolean }): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (depth > LOOK_DEPTH) {
    unseen.left = true;
    return value;
  }
  if (isLiveMessage(value)) return withWireMessages(wireMessage(value), depth + 1, unseen);
  const type = serialisedMessageType(value);
  if (type !== undefined)
    return withWireMessages({ ...(value as LangChainSerialised).kwargs, type }, depth + 1, unseen);
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") {
    unseen.left = true;
    return value;
  }
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      const wired = withWireMessages(item, depth + 1, unseen);
      if (wired !== item) (copy ??= value.slice())[i] = wired;
    }
    return copy ?? value;
  }
  // Any other object writes its own enumerable keys, as a plain copy of them does.
  const record = value as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(record)) {
    const item = record[key];
    const wired = withWireMessages(item, depth + 1, unseen);
    // The copy has every key of its own, `__proto__` too: assigning one sets that key.
    if (wired !== item) (copy ??= { ...record })[key] = wired;
  }
  return copy ?? value;
}

interface LiveMessageClass {
  lc_name?: () => string;
}

/** A message of LangChain's core classes (`wireMessage` writes it as `toWire` would). */
export function isLiveMessage(value: object): boolean {
  const m = value as LangChainMessage & { lc_namespace?: unknown; constructor?: LiveMessageClass };
  if (m.lc_serializable !== true || typeof m.constructor?.lc_name !== "function") return false;
  const namespace = m.lc_namespace;
  if (!Array.isArray(namespace) || namespace[0] !== "langchain_core" || namespace[1] !== "messages") return false;
  const name = m.constructor.lc_name();
  return TYPE_OF_CLASS[name.endsWith("Chunk") ? name.slice(0, -"Chunk".length) : name] !== undefined;
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
