/**
 * `@interlude/core/zod`: LangGraph.js's `@langchain/langgraph/zod` (zod state metadata) and
 * `MessagesZodState`, which needs zod at import time and so is not in the main entry
 * (`MessagesZodMeta`, plain data, is in both).
 */

import { z } from "zod";
import { registry, type SchemaMeta, withLangGraph } from "../graph/schema-meta.js";
import type { BaseMessage } from "../messages/types.js";
import { MessagesZodMeta } from "../messages/zod-meta.js";

export { MessagesZodMeta, registry, type SchemaMeta, withLangGraph };

/** A zod state with a `messages` field, as LangGraph.js's `MessagesZodState`. */
// Annotated, not inferred: the declaration must name `BaseMessage`, not what it resolves to here.
export const MessagesZodState: z.ZodObject<{ messages: z.ZodCustom<BaseMessage[], BaseMessage[]> }> = z.object({
  messages: withLangGraph(z.custom<BaseMessage[]>(), MessagesZodMeta),
});
