/**
 * `pushMessage`: a node shows a message on the `messages` stream before it returns, and (unless
 * `stateKey: null`) writes it to state with its other writes, as LangGraph.js's does. The
 * message must have an id: returning it again afterwards neither streams it twice nor adds it
 * twice (the messages reducer replaces by id).
 */
import { InterludeError } from "../errors/base.js";
import { OutsideNodeError } from "../errors/store.js";
import { langchainLoaded } from "../langchain/load.js";
import { currentTask } from "../runner/scope.js";
import type { BaseMessage, BaseMessageLike } from "./types.js";

/** `pushMessage()` was given a message without an id. */
export class MessageIdRequiredError extends InterludeError {
  constructor() {
    super(
      "MESSAGE_ID_REQUIRED",
      "pushMessage() needs a message with an id, so that the node returning it later does not show or add it twice. Give it one: new AIMessage({ id, content }).",
    );
  }
}

export interface PushMessageOptions {
  /** The state key the message is written to; `null` streams it without writing it. Default `"messages"`. */
  stateKey?: string | null;
  [key: string]: unknown;
}

/** What the messages stream's handler offers (callbacks/messages-handler.ts). */
interface PushTarget {
  name: string;
  pushMessage(message: BaseMessage, metadata: Record<string, unknown>, tags?: string[]): void;
}

function handlersOf(callbacks: unknown): unknown[] {
  if (Array.isArray(callbacks)) return callbacks;
  return (callbacks as { handlers?: unknown[] } | undefined)?.handlers ?? [];
}

function isPushTarget(handler: unknown): handler is PushTarget {
  return (
    (handler as PushTarget | null)?.name === "StreamMessagesHandler" &&
    typeof (handler as PushTarget).pushMessage === "function"
  );
}

export function pushMessage(message: BaseMessage | BaseMessageLike, options: PushMessageOptions = {}): BaseMessage {
  const { stateKey = "messages", ...given } = options;
  const scope = currentTask();
  if (!scope) throw new OutsideNodeError("pushMessage()");
  const config = Object.keys(given).length ? given : scope.config;
  const lc = langchainLoaded();
  const coerced = (lc ? lc.messages.coerceMessageLikeToMessage(message) : message) as BaseMessage;
  if (!coerced.id) throw new MessageIdRequiredError();
  for (const handler of handlersOf(config.callbacks))
    if (isPushTarget(handler))
      handler.pushMessage(coerced, (config.metadata ?? {}) as Record<string, unknown>, config.tags as string[]);
  if (stateKey !== null) {
    ((scope.root ?? scope).pushed ??= []).push([stateKey, coerced]);
    scope.progress?.();
  }
  return coerced;
}
