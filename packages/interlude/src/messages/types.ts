/**
 * The message types of Interlude's public API. `@langchain/core` is an optional peer, so the
 * root entry's declarations cannot import it: a program that has it registers LangChain's
 * classes in `MessageTypes` (importing `@interlude/core/langchain` or `@interlude/core/prebuilt`
 * does it), and `MessagesAnnotation`'s state is then typed with LangChain's `BaseMessage`.
 * Without it, messages have the structural shape below.
 */

/** Filled by `@interlude/core/langchain` with `{ message: BaseMessage; messageLike: BaseMessageLike }`. */
// biome-ignore lint/suspicious/noEmptyInterface: augmented by declaration merging
export interface MessageTypes {}

/** What Interlude knows of a message without `@langchain/core`'s declarations. */
export interface MessageShape {
  id?: string;
  name?: string;
  content: string | unknown[];
  getType(): string;
}

/** A message with its role and content, which the reducer turns into a message. */
interface MessageFields {
  role: string;
  content: string | unknown[];
  id?: string;
  name?: string;
}

/** A message: LangChain's `BaseMessage` where registered, otherwise `MessageShape`. */
export type BaseMessage = MessageTypes extends { message: unknown } ? MessageTypes["message"] : MessageShape;

/** What the messages reducer accepts: LangChain's `BaseMessageLike` where registered. */
export type BaseMessageLike = MessageTypes extends { messageLike: unknown }
  ? MessageTypes["messageLike"]
  : MessageShape | MessageFields | [string, string | unknown[]] | string;
