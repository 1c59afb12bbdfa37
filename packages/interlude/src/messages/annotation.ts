/** `MessagesAnnotation`: the state of a chat agent, a list of messages combined by id. */
import type { BaseMessage } from "@langchain/core/messages";
import { Annotation } from "../graph/annotation.js";
import { type Messages, messagesStateReducer } from "./reducer.js";

export const MessagesAnnotation = Annotation.Root({
  messages: Annotation<BaseMessage[], Messages>({ reducer: messagesStateReducer, default: () => [] }),
});
