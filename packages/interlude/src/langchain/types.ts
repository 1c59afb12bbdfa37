/**
 * Types Interlude's messages with `@langchain/core`'s classes. Imported (for its types) by
 * `@interlude/core/langchain` and `@interlude/core/prebuilt`, whose users have `@langchain/core`.
 */
import type {
  BaseMessage as LangChainMessage,
  BaseMessageLike as LangChainMessageLike,
} from "@langchain/core/messages";

declare module "../messages/types.js" {
  interface MessageTypes {
    message: LangChainMessage;
    messageLike: LangChainMessageLike;
  }
}
