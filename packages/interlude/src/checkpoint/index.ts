// What users of the core see. A backend's building blocks (the put pipeline, delta planning,
// value assembly, prune planning) are `@interlude/core/saver-kit` (kit/index.ts).
export { BaseCheckpointSaver, type SaverStats } from "./base.js";
export type { DeltaOptions } from "./delta.js";
export { newCheckpointId } from "./id.js";
export * from "./memory.js";
export { InvalidPruneError, type PruneOptions, type RetentionOptions } from "./retention.js";
export * from "./serde.js";
export * from "./types.js";
