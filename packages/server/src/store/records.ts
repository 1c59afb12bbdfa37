/**
 * What the server keeps beside the checkpoints: assistants, threads (with a cached status and
 * pending interrupts), runs, the inbox's pending interrupts and the answers given. Plain,
 * serialisable records; field names follow the LangGraph Server API (snake_case).
 */
export type ThreadStatus = "idle" | "busy" | "interrupted" | "error";
export type RunStatus = "pending" | "running" | "error" | "success" | "timeout" | "interrupted";
export type MultitaskStrategy = "reject" | "interrupt" | "rollback" | "enqueue";

export type Json = Record<string, unknown>;

export interface AssistantRecord {
  assistant_id: string;
  graph_id: string;
  name: string;
  description: string | null;
  config: Json;
  context: unknown;
  metadata: Json;
  version: number;
  created_at: string;
  updated_at: string;
}

/** An interrupt as the API shows it (LangGraph Server's shape plus Interlude's extras). */
export interface ApiInterrupt {
  id: string;
  value: unknown;
  ns?: string[];
  key?: string;
  response_schema?: Json;
}

export interface ThreadRecord {
  thread_id: string;
  created_at: string;
  updated_at: string;
  state_updated_at: string;
  metadata: Json;
  status: ThreadStatus;
  values: Json | null;
  /**
   * As read: the values are not in the row but in this checkpoint (thread-values.ts); as
   * synced: the checkpoint they were read from.
   */
  values_checkpoint_id?: string;
  /** task id -> interrupts pending in that task */
  interrupts: Record<string, ApiInterrupt[]>;
  error: unknown;
  config: Json;
  graph_id: string | null;
  assistant_id: string | null;
}

/** What a run was asked to do: the request body, kept so any process can execute the run. */
export interface RunKwargs {
  input?: unknown;
  command?: { resume?: unknown; update?: unknown; goto?: unknown; reason?: string } | null;
  config?: Json;
  context?: unknown;
  stream_mode?: string[];
  stream_subgraphs?: boolean;
  interrupt_before?: string[] | "*";
  interrupt_after?: string[] | "*";
  checkpoint_id?: string;
  /** When checkpoints are saved (the core's default, "sync", when not given). */
  durability?: "sync" | "async" | "exit";
  /** Longest the run may execute (Interlude extension); then it stops with status `timeout`. */
  timeout_seconds?: number;
  /**
   * What its client's going away does to a stream or wait run: `cancel` stops it (also when the
   * client goes with a server shutting down); `continue`, the default, lets it go on.
   */
  on_disconnect?: "cancel" | "continue";
  /** Cancelled while running: recorded so that a restart after a crash does not execute it again. */
  stop_requested?: "interrupt" | "rollback";
  /** Interrupt ids this run answers (reserved in `answers`). */
  answers?: string[];
  /** Head checkpoint when the run first started: a retried run continues instead of re-sending its input. */
  started_at_checkpoint?: string | null;
  /** A checkpoint id made when it first started: a rollback drops every checkpoint saved after it (threads/copy.ts). */
  started_mark?: string;
  /** When it first started (ms since the epoch): its timeout counts from then, across the processes that execute it. */
  started_ms?: number;
  /** How many times the process executing it died (runs/lease.ts): past a few, it is not tried again. */
  lost?: number;
}

export interface RunRecord {
  run_id: string;
  thread_id: string;
  assistant_id: string;
  created_at: string;
  updated_at: string;
  status: RunStatus;
  metadata: Json;
  multitask_strategy: MultitaskStrategy;
  kwargs: RunKwargs;
  /** Who asked for the run (recorded as `by` of its answers). */
  identity: string;
  /** Process that must execute it (stream and wait runs), or null for the shared queue. */
  owner: string | null;
  attempt: number;
  error: unknown;
}

export interface PendingInterrupt {
  thread_id: string;
  interrupt_id: string;
  graph_id: string | null;
  assistant_id: string | null;
  value: unknown;
  response_schema: Json | null;
  ns: string[];
  created_at: string;
  /** When the interrupt's deadline expires (ISO), if it declared one. */
  deadline_at: string | null;
}

export interface AnswerRecord {
  thread_id: string;
  interrupt_id: string;
  by: string;
  answer: unknown;
  at: string;
  run_id: string | null;
  /** `reserved` while the run carrying it has not yet got past the answered node. */
  state: "reserved" | "applied";
}
