/**
 * `@interlude/core/langchain`: for programs that have `@langchain/core`. Importing this entry
 * (even `import type {} from "@interlude/core/langchain"`) types `MessagesAnnotation`,
 * `MessagesValue` and the messages reducer with LangChain's `BaseMessage` instead of the
 * structural `MessageShape` the root entry uses without it. At run time it loads nothing.
 */
import "./types.js";

export type { BaseMessage, BaseMessageLike, MessageShape, MessageTypes } from "../messages/types.js";
