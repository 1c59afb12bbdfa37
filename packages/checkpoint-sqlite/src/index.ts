export type { WriteOptions } from "./group-commit.js";
export { GroupCommit } from "./group-commit.js";
export { SqliteSaver, type SqliteSaverOptions } from "./saver.js";
export { SCHEMA_VERSION } from "./schema.js";
export { SqliteStore, type SqliteStoreOptions, STORE_SCHEMA_VERSION } from "./store.js";
export { startWalCheckpointer, type WalCheckpointer, type WalCheckpointerOptions } from "./wal-checkpointer.js";
