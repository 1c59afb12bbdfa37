/**
 * `MessagesZodMeta`, the metadata of a zod state's messages field
 * (`z.custom<BaseMessage[]>().register(registry, MessagesZodMeta)`). Plain data: it needs no
 * zod, so the root entry has it, as LangGraph.js's does.
 */
import type { SchemaMeta } from "../graph/schema-meta.js";
import { type Messages, messagesStateReducer } from "./reducer.js";
import type { BaseMessage } from "./types.js";

/** Combined by `messagesStateReducer`, empty by default. */
export const MessagesZodMeta: SchemaMeta<BaseMessage[], Messages> = {
  reducer: { fn: messagesStateReducer },
  jsonSchemaExtra: { langgraph_type: "messages" },
  default: () => [],
};
