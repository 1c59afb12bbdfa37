export { PostgresSaver, type PostgresSaverOptions } from "./saver.js";
export { SCHEMA_VERSION } from "./schema.js";
