/**
 * @interlude/server: the LangGraph Server HTTP API over Interlude, the inbox endpoints, and
 * the `interlude` CLI (src/cli). Embed with `startServer({ config: loadConfig(path) })`.
 */
export { startServer, type ServeOptions, type RunningServer } from "./server.js";
export { openBackend, defaultSqlitePath, type Backend, type BackendOptions } from "./backend.js";
export { loadConfig, parseApiKeys, type ServerConfig } from "./config/config.js";
export { ConfigError } from "./config/errors.js";
export { createApp, type AppOptions } from "./http/app.js";
export { defaultAssistantId } from "./assistants/defaults.js";
export { ServerError, NotFoundError, UnauthorizedError, InvalidRequestError, ThreadRunningError, AlreadyAnsweredError, ConflictError } from "./errors.js";
export type { BusEvent, InterruptCreatedEvent, InterruptResolvedEvent } from "./events/bus.js";
export type { ThreadRecord, RunRecord, AssistantRecord, PendingInterrupt, AnswerRecord, ThreadStatus, RunStatus, MultitaskStrategy } from "./store/records.js";
export { deadlineOf, type DeadlineSpec } from "./inbox/deadline-spec.js";
