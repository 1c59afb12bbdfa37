/**
 * @interlude/server: the LangGraph Server HTTP API over Interlude, the inbox endpoints, and
 * the `interlude` CLI (src/cli). Embed with `startServer({ config: loadConfig(path) })`.
 */

export { defaultAssistantId } from "./assistants/defaults.js";
export { type Backend, type BackendOptions, defaultSqlitePath, openBackend } from "./backend.js";
export { loadConfig, parseApiKeys, type ServerConfig } from "./config/config.js";
export { ConfigError } from "./config/errors.js";
export {
  AlreadyAnsweredError,
  ConflictError,
  InvalidRequestError,
  NotFoundError,
  ServerError,
  ThreadRunningError,
  UnauthorizedError,
} from "./errors.js";
export type { BusEvent, InterruptCreatedEvent, InterruptResolvedEvent } from "./events/bus.js";
export { type AppOptions, createApp } from "./http/app.js";
export { type DeadlineSpec, deadlineOf } from "./inbox/deadline-spec.js";
export { type RunningServer, type ServeOptions, startServer } from "./server.js";
export type {
  AnswerRecord,
  AssistantRecord,
  MultitaskStrategy,
  PendingInterrupt,
  RunRecord,
  RunStatus,
  ThreadRecord,
  ThreadStatus,
} from "./store/records.js";
