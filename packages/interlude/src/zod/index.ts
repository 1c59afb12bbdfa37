/**
 * `@interlude/core/zod`: LangGraph.js's `@langchain/langgraph/zod` (zod state metadata) and
 * `MessagesZodState`, which needs zod at import time and so is not in the main entry.
 */

import { z } from "zod";
import { registry, type SchemaMeta, withLangGraph } from "../graph/schema-meta.js";
import { type Messages, messagesStateReducer } from "../messages/reducer.js";
import type { BaseMessage } from "../messages/types.js";

export { registry, type SchemaMeta, withLangGraph };

/** The metadata of a messages field: combined by `messagesStateReducer`, empty by default. */
export const MessagesZodMeta: SchemaMeta<BaseMessage[], Messages> = {
  reducer: { fn: messagesStateReducer },
  jsonSchemaExtra: { langgraph_type: "messages" },
  default: () => [],
};

/** A zod state with a `messages` field, as LangGraph.js's `MessagesZodState`. */
// Annotated, not inferred: the declaration must name `BaseMessage`, not what it resolves to here.
export const MessagesZodState: z.ZodObject<{ messages: z.ZodCustom<BaseMessage[], BaseMessage[]> }> = z.object({
  messages: withLangGraph(z.custom<BaseMessage[]>(), MessagesZodMeta),
});
