export type { WriteOptions } from "./group-commit.js";
export { GroupCommit } from "./group-commit.js";
export { SqliteSaver, type SqliteSaverOptions } from "./saver.js";
export { SCHEMA_VERSION } from "./schema.js";
export { startWalCheckpointer, type WalCheckpointer, type WalCheckpointerOptions } from "./wal-checkpointer.js";
