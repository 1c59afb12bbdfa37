/**
 * Every `code` an Interlude error carries (core, savers, server), each with its HTTP meaning:
 * the status the server answers with, or `null` for a failure that is not the caller's to fix
 * (the server answers 500 and keeps the details in its log). Declared once, so that a code is
 * a member of `ErrorCode` and never a string spelled again in another package.
 */
export const ERROR_STATUS = {
  // The graph and its input
  GRAPH_VALIDATION: 400,
  INVALID_UPDATE: 400,
  EMPTY_INPUT: 400,
  MISSING_THREAD_ID: 400,
  INVALID_STATE_INPUT: null,
  INVALID_STATE_DEFINITION: null,
  INVALID_CONTEXT: null,
  GRAPH_RECURSION_LIMIT: null,
  INVALID_RUN_OPTION: 400,
  MISSING_CHECKPOINTER: null,
  INVALID_CHECKPOINTER: null,
  GRAPH_VALUE: null,
  NODE_TIMEOUT: null,
  CHECKPOINT_NOT_FOUND: 404,
  RUN_CANCELLED: null,
  INTERRUPT_OUTSIDE_NODE: null,
  OUTSIDE_NODE: null,
  MISSING_PEER_DEPENDENCY: null,
  LANGCHAIN_MISSING: null,
  LANGCHAIN_NOT_LOADED: null,
  UNSUPPORTED_EVENTS_VERSION: null,
  UNSUPPORTED_FEATURE: null,
  UNSUPPORTED_AGENT_OPTION: null,
  UNKNOWN_MESSAGE_ID: null,
  MESSAGE_ID_REQUIRED: null,
  // Answers to interrupts
  AMBIGUOUS_RESUME: 400,
  UNKNOWN_INTERRUPT: 404,
  NOTHING_TO_RESUME: 409,
  INTERRUPT_MISMATCH: 409,
  INVALID_RESUME: 422,
  ASYNC_SCHEMA: null,
  // Storage
  THREAD_BUSY: 409,
  THREAD_CLAIM_LOST: 409,
  CHECKPOINT_CONFLICT: 409,
  STORAGE_FAILED: 503,
  SERVER_STOPPING: 503,
  SERIALIZATION: 400,
  INVALID_PRUNE: null,
  INVALID_SAVER_OPTION: null,
  TRANSACTION_POOLER: null,
  INVALID_NAMESPACE: 422,
  UNSUPPORTED_STORE_OPTION: null,
  // The server
  CONFIG_INVALID: null,
  NOT_FOUND: 404,
  UNAUTHORIZED: 401,
  INVALID_REQUEST: 422,
  INVALID_JSON: 400,
  INVALID_PATH: 400,
  JSON_TOO_DEEP: 400,
  BODY_TOO_LARGE: 413,
  GRAPH_REQUIRED: 409,
  THREAD_RUNNING: 409,
  CONFLICT: 409,
  ALREADY_ANSWERED: 409,
  RUN_FAILED: 409,
  RUN_TIMED_OUT: null,
  RUN_LOST: null,
  DEADLINE_EXPIRED: null,
  INTERNAL: 500,
} as const satisfies Record<string, number | null>;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** The HTTP status of `code`; undefined for an unknown code or a failure that is a 500. */
export function statusOfCode(code: string | undefined): number | undefined {
  if (code === undefined || !Object.hasOwn(ERROR_STATUS, code)) return undefined;
  return ERROR_STATUS[code as ErrorCode] ?? undefined;
}
