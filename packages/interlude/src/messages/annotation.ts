/** `MessagesAnnotation`: the state of a chat agent, a list of messages combined by id. */

import { Annotation, type AnnotationRoot, type ChannelSpec } from "../graph/annotation.js";
import type { OverwriteValue } from "../primitives/overwrite.js";
import { type Messages, messagesStateReducer } from "./reducer.js";
import type { BaseMessage } from "./types.js";

// Annotated, not inferred: the declaration must name `BaseMessage`, not what it resolves to here.
export const MessagesAnnotation: AnnotationRoot<{
  messages: ChannelSpec<BaseMessage[], Messages | OverwriteValue<BaseMessage[]>>;
}> = Annotation.Root({
  messages: Annotation<BaseMessage[], Messages>({ reducer: messagesStateReducer, default: () => [] }),
});
