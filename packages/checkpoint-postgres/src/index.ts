export { TransactionPoolerError } from "./errors.js";
export type { ClaimInTransaction, JoinedSaver, JoinedStatement } from "./joined.js";
export { PostgresSaver } from "./saver.js";
export type { PostgresSaverOptions } from "./saver-options.js";
export { SCHEMA_VERSION } from "./schema.js";
export { setupAdvice } from "./setup-advice.js";
export { PostgresStore, type PostgresStoreConfig, STORE_SCHEMA_VERSION } from "./store.js";
