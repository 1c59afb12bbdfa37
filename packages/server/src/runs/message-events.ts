/**
 * The core's `messages` stream (`[message or chunk, metadata]` as the model produces tokens)
 * turned into the events LangGraph Server sends for it:
 * - stream mode `messages-tuple`: one `messages` event per chunk, data `[chunk, metadata]`;
 * - stream mode `messages`: `messages/metadata` (`{ [id]: { metadata } }`) the first time a
 *   message is seen, then `messages/partial` (`[the message so far]`) per chunk, or
 *   `messages/complete` (`[message]`) for a message that arrives whole.
 * Messages go into the events in their wire shape, copied as they are now (the graph may still
 * change them, e.g. give them an id, before the events are sent or stored).
 */
import { wireMessage } from "../wire/messages.js";

interface MessageLike {
  id?: string;
  concat?: (other: MessageLike) => MessageLike;
}

export type MessageEvent = [name: string, data: unknown];

/** The message's id, or a stand-in for one without (its chunks then stand alone). */
const idOf = (message: MessageLike, fallback: number) => message.id ?? `message-${fallback}`;

/** A chunk is concatenated with its predecessors; a whole message is not. */
const isChunk = (message: MessageLike) =>
  typeof message.concat === "function" && message.constructor.name.endsWith("Chunk");

/** One run's message events; keeps each message's text so far (for `messages/partial`). */
export class MessageEvents {
  private readonly soFar = new Map<string, MessageLike>();
  private anonymous = 0;

  events(mode: "messages" | "messages-tuple", tuple: unknown): MessageEvent[] {
    const [message, metadata] = tuple as [MessageLike, Record<string, unknown>];
    if (mode === "messages-tuple") return [["messages", [wireMessage(message), metadata]]];
    const id = idOf(message, this.anonymous++);
    const out: MessageEvent[] = [];
    const before = this.soFar.get(id);
    if (!before) out.push(["messages/metadata", { [id]: { metadata } }]);
    if (!isChunk(message)) {
      this.soFar.set(id, message);
      out.push(["messages/complete", [wireMessage(message)]]);
      return out;
    }
    const merged = before?.concat ? before.concat(message) : message;
    this.soFar.set(id, merged);
    out.push(["messages/partial", [wireMessage(merged)]]);
    return out;
  }
}
