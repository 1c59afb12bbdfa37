/**
 * The records the inbox reads from the server. Shapes follow the LangGraph Server API (as the
 * `@langchain/langgraph-sdk` Client sees them) plus Interlude's inbox endpoints.
 */

/** One pending interrupt, as listed by `GET /inbox/interrupts`. */
export interface InboxItem {
  thread_id: string;
  graph_id: string;
  assistant_id: string;
  interrupt_id: string;
  value: unknown;
  /** JSON Schema of the expected answer, when the interrupt declared one. */
  response_schema?: JsonSchema | null;
  /** Namespace path of the (sub)graph task that asked. */
  ns?: string | string[] | null;
  created_at: string;
  age_seconds: number;
}

export interface InboxPage {
  items: InboxItem[];
  total: number;
}

export interface InboxFilter {
  graph_id?: string;
  q?: string;
  min_age_seconds?: number;
  limit?: number;
  offset?: number;
}

/** `interrupt.resolved` event and the body of a 409 `already_answered`. */
export interface Resolution {
  thread_id?: string;
  interrupt_id: string;
  by?: string | null;
  answer?: unknown;
  at?: string | null;
}

export interface AnswerIssue {
  message: string;
  path?: ReadonlyArray<PropertyKey | { key: PropertyKey }>;
}

export type JsonSchema = {
  type?: string | string[];
  title?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  items?: JsonSchema;
  format?: string;
  minimum?: number;
  maximum?: number;
  [key: string]: unknown;
};

interface Checkpoint {
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id: string | null;
  checkpoint_map?: Record<string, unknown> | null;
}

/** An answer recorded in the checkpoint that followed it (`metadata.resume`). */
interface ResumeRecord {
  by?: string;
  reason?: string;
  at: string;
  answers: Record<string, unknown>;
}

interface PendingInterrupt {
  id?: string;
  interrupt_id?: string;
  value: unknown;
  ns?: string | string[];
}

interface ThreadTask {
  id: string;
  name: string;
  error?: string | null;
  interrupts: PendingInterrupt[];
}

export interface ThreadState {
  values: Record<string, unknown> | unknown;
  next: string[];
  checkpoint: Checkpoint;
  metadata: {
    source?: string;
    step?: number;
    writes?: Record<string, unknown> | null;
    resume?: ResumeRecord[];
    [key: string]: unknown;
  } | null;
  created_at: string | null;
  parent_checkpoint: Checkpoint | null;
  tasks: ThreadTask[];
}

export interface Thread {
  thread_id: string;
  created_at: string;
  updated_at: string;
  status: "idle" | "busy" | "interrupted" | "error";
  metadata: Record<string, unknown> | null;
  values?: unknown;
  interrupts?: Record<string, PendingInterrupt[]>;
}

export interface Assistant {
  assistant_id: string;
  graph_id: string;
  name?: string;
}

export interface AssistantGraph {
  nodes: Array<{ id: string | number; name?: string; data?: Record<string, unknown> | string }>;
  edges: Array<{ source: string; target: string; data?: string; conditional?: boolean }>;
}

/** Agent Inbox's question format. */
export interface ActionRequest {
  action: string;
  args: Record<string, unknown>;
}

export interface HumanInterrupt {
  action_request: ActionRequest;
  config: { allow_accept: boolean; allow_edit: boolean; allow_respond: boolean; allow_ignore: boolean };
  description?: string;
}

/** Agent Inbox's answer format. */
export type HumanResponse =
  | { type: "accept"; args: ActionRequest }
  | { type: "edit"; args: ActionRequest }
  | { type: "response"; args: string }
  | { type: "ignore"; args: null };

/** LangChain v1 `humanInTheLoopMiddleware`'s question: tool calls to review, with what each allows. */
export type DecisionType = "approve" | "edit" | "reject";

export interface ToolReviewRequest {
  actionRequests: Array<{ name: string; args: Record<string, unknown>; description?: string }>;
  reviewConfigs: Array<{ actionName: string; allowedDecisions: DecisionType[]; argsSchema?: JsonSchema }>;
}

/** Its answer, `{ decisions }`: one decision per action request, in order. */
export type ToolDecision =
  | { type: "approve" }
  | { type: "edit"; editedAction: { name: string; args: Record<string, unknown> } }
  | { type: "reject"; message?: string };
