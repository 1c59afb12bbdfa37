/**
 * `@interlude/core/saver-kit`: what a checkpoint backend is built from. Extend `SaverKit` and
 * supply the primitive operations (see its documentation); the kit owns the storage algorithm,
 * and `@interlude/checkpoint-conformance` checks the result.
 */

export { everyName } from "../../errors/options.js";
export { DEFAULT_CLAIM_TTL_MS } from "../../thread/claim.js";
export { newClaimOwner } from "../../thread/claim-owner.js";
export { type BlobLookup, blobKey, type StoredBlob } from "../delta.js";
export { copyPlain, NOT_PLAIN } from "../plain-copy.js";
export type { PreparedBlob, PreparedPut, PreparedWrite } from "../prepare.js";
export type { PruneRequest } from "../retention.js";
export { buildTuple, type CheckpointRecord, recordOf } from "../tuple.js";
export { type HeadCacheLimits, headCacheLimits } from "./cache-limits.js";
export {
  decodeInline,
  INLINE_ROW_CHARS,
  INLINE_VALUE_CHARS,
  InlineRow,
  inlinable,
  inlinableBlob,
} from "./inline.js";
export { KIT_OPTIONS, refuseUnknownOptions } from "./known-options.js";
export { type ListCandidate, type ListScope, listSql } from "./list-scope.js";
export {
  copyValue,
  type ParsedHead,
  type PutSeed,
  parsedAfter,
  parsedOf,
  seedOf,
} from "./private-copies.js";
export type { PruneCandidate, PrunePlan, StoredBlobRef } from "./prune-plan.js";
export { BASE_MISSING, type HeadMoved, type PutOutcome, type PutSteps, putInSteps, STORED } from "./put-steps.js";
export {
  type Keeper,
  type MaybePromise,
  type PreparedWrites,
  SaverKit,
  type SaverKitOptions,
  type StoredCheckpoint,
  type StoredWrite,
  storageError,
} from "./saver-kit.js";
