export type { ClaimInTransaction, JoinedSaver, JoinedStatement } from "./joined.js";
export { PostgresSaver, type PostgresSaverOptions } from "./saver.js";
export { SCHEMA_VERSION } from "./schema.js";
export { PostgresStore, type PostgresStoreConfig, STORE_SCHEMA_VERSION } from "./store.js";
