/**
 * The messages reducer, with LangGraph's semantics: message-likes become messages, every
 * message gets an id, a message whose id is already there replaces it, `RemoveMessage`
 * deletes by id, and `RemoveMessage({ id: REMOVE_ALL_MESSAGES })` clears what came before.
 */

import { InterludeError } from "../errors/base.js";
import { type LangChainModules, langchainLoaded } from "../langchain/load.js";
import type { BaseMessage, BaseMessageLike } from "./types.js";

/** The id of a `RemoveMessage` that removes every message before it. */
export const REMOVE_ALL_MESSAGES = "__remove_all__";

export type Messages = Array<BaseMessage | BaseMessageLike> | BaseMessage | BaseMessageLike;

/** Marks reducers that need `@langchain/core` loaded before a run (see `GraphSpec.usesLangChain`). */
const NEEDS_LANGCHAIN: unique symbol = Symbol.for("interlude.needsLangChain");

/** A `RemoveMessage` named an id that no message has. */
export class UnknownMessageIdError extends InterludeError {
  constructor(readonly id: string) {
    super(
      "UNKNOWN_MESSAGE_ID",
      `RemoveMessage({ id: "${id}" }) names no message in the state. Remove messages by the id they have in getState().values.messages.`,
    );
  }
}

interface MessageShape {
  id?: string | null;
  lc_kwargs?: Record<string, unknown>;
  getType(): string;
}

function isMessage(value: unknown): value is MessageShape {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { lc_serializable?: unknown }).lc_serializable === true &&
    typeof (value as MessageShape).getType === "function"
  );
}

function modules(): LangChainModules {
  const lc = langchainLoaded();
  if (lc) return lc;
  throw new InterludeError(
    "LANGCHAIN_NOT_LOADED",
    "messagesStateReducer was given message-likes (strings, { role, content }, chunks) before @langchain/core was loaded. " +
      "Graphs load it before their first step; outside a graph, first await loadLangChain() from @interlude/core.",
  );
}

/** A message, with chunks turned into their whole class (as LangGraph stores them). */
function toMessage(like: unknown): MessageShape {
  if (isMessage(like) && !like.constructor.name.endsWith("Chunk")) return like;
  const { messages } = modules();
  const message = messages.coerceMessageLikeToMessage(like) as MessageShape;
  if (!messages.BaseMessageChunk.isInstance(message)) return message;
  const Whole = WHOLE_CLASS[message.getType()];
  if (!Whole) return message;
  const fields = Object.entries(message).filter(
    ([key]) => key !== "type" && key !== "tool_call_chunks" && !key.startsWith("lc_"),
  );
  return new messages[Whole](Object.fromEntries(fields)) as MessageShape;
}

const WHOLE_CLASS: Record<string, string> = {
  human: "HumanMessage",
  ai: "AIMessage",
  system: "SystemMessage",
  tool: "ToolMessage",
  function: "FunctionMessage",
  generic: "ChatMessage",
};

function withId(message: MessageShape): MessageShape {
  if (message.id === undefined || message.id === null) {
    message.id = crypto.randomUUID();
    // LangChain serialises constructor arguments: the id must be among them to survive a checkpoint.
    if (message.lc_kwargs) message.lc_kwargs.id = message.id;
  }
  return message;
}

function isRemove(message: MessageShape): boolean {
  return message.getType() === "remove";
}

function reduceMessages(left: Messages, right: Messages): BaseMessage[] {
  const leftMessages = (Array.isArray(left) ? left : [left]).map((m) => withId(toMessage(m)));
  const rightMessages = (Array.isArray(right) ? right : [right]).map((m) => withId(toMessage(m)));
  const removeAll = rightMessages.findLastIndex((m) => isRemove(m) && m.id === REMOVE_ALL_MESSAGES);
  if (removeAll >= 0) return rightMessages.slice(removeAll + 1) as unknown as BaseMessage[];
  const merged = [...leftMessages];
  const indexById = new Map(merged.map((m, i) => [m.id, i]));
  const removed = new Set<string>();
  for (const message of rightMessages) {
    const index = indexById.get(message.id);
    if (index === undefined) {
      if (isRemove(message)) throw new UnknownMessageIdError(String(message.id));
      indexById.set(message.id, merged.length);
      merged.push(message);
    } else if (isRemove(message)) removed.add(String(message.id));
    else {
      removed.delete(String(message.id));
      merged[index] = message;
    }
  }
  const kept = removed.size ? merged.filter((m) => !removed.has(String(m.id))) : merged;
  return kept as unknown as BaseMessage[];
}

/** Combines the messages in state with an update (see the file comment). */
export const messagesStateReducer = Object.assign(reduceMessages, { [NEEDS_LANGCHAIN]: true as const });

/**
 * The messages reducer for a `DeltaChannel` (LangGraph.js's `messagesDeltaReducer`): folds a
 * step's writes (each a message-like or a list) in one pass. A message whose id is there
 * replaces it, `RemoveMessage` deletes by id (an unknown id is ignored, as in LangGraph.js) and
 * `REMOVE_ALL_MESSAGES` clears what came before; a message without an id gets one.
 */
function reduceMessageBatch(state: BaseMessage[], writes: Messages[]): BaseMessage[] {
  const result: (MessageShape | null)[] = (state as unknown as unknown[]).map(toMessage);
  const indexById = new Map<unknown, number>();
  for (const [i, message] of result.entries()) if (message!.id != null) indexById.set(message!.id, i);
  for (const write of writes)
    for (const like of Array.isArray(write) ? write : [write]) {
      const message = withId(toMessage(like));
      const at = indexById.get(message.id);
      if (isRemove(message) && message.id === REMOVE_ALL_MESSAGES) {
        result.length = 0;
        indexById.clear();
      } else if (isRemove(message)) {
        if (at !== undefined) result[at] = null;
        indexById.delete(message.id);
      } else if (at !== undefined) result[at] = message;
      else {
        indexById.set(message.id, result.length);
        result.push(message);
      }
    }
  return result.filter((m) => m !== null) as unknown as BaseMessage[];
}

export const messagesDeltaReducer = Object.assign(reduceMessageBatch, { [NEEDS_LANGCHAIN]: true as const });

/**
 * LangGraph's other name for `messagesStateReducer`.
 * @alias
 */
export const addMessages = messagesStateReducer;

export function needsLangChain(reducer: unknown): boolean {
  return typeof reducer === "function" && (reducer as { [NEEDS_LANGCHAIN]?: boolean })[NEEDS_LANGCHAIN] === true;
}
