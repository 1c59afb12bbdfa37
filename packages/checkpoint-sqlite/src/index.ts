export { SqliteSaver, type SqliteSaverOptions } from "./saver.js";
export { SCHEMA_VERSION } from "./schema.js";
