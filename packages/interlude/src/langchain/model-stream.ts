/**
 * `ChatModelStreamImpl`, LangGraph.js's name for LangChain's `ChatModelStream` (one AI message as
 * it streams), exported without importing `@langchain/core` when Interlude loads: constructing
 * one builds LangChain's own class, and `instanceof` asks that class, so the streams
 * `run.messages` gives are instances of it, as in LangGraph.js.
 */
import type { ChatModelStreamHandle } from "../protocol/types.js";
import { chatModelStreamClass, langchainLoaded } from "./load.js";

/** What LangChain's `ChatModelStream` offers besides the node and namespace `run.messages` adds. */
type ChatModelStreamShape = Omit<ChatModelStreamHandle, "node" | "namespace">;

/** LangChain's `ChatModelStream`: `@langchain/core` must be loaded first (`await loadLangChain()`), else `LangChainNotReadyError`. */
export const ChatModelStreamImpl = class ChatModelStreamImpl {
  constructor(source: AsyncIterable<unknown>) {
    // A constructor may return another object: the instance is LangChain's own class's.
    // biome-ignore lint/correctness/noConstructorReturn: the point of this class
    return new (chatModelStreamClass("new ChatModelStreamImpl()"))(source);
  }

  static [Symbol.hasInstance](value: unknown): boolean {
    const Class = langchainLoaded()?.modelStream?.ChatModelStream;
    return Class !== undefined && value instanceof Class;
  }
} as unknown as new (
  source: AsyncIterable<unknown>,
) => ChatModelStreamShape;
export type ChatModelStreamImpl = ChatModelStreamShape;
