import type { PreparedBlob, PreparedPut } from "../prepare.js";
import type { ChannelVersion } from "../types.js";

/** The put was stored. */
export const STORED = "stored";
/** A delta's base is not in the store (pruned, or written by another saver): the kit retries with full copies. */
export const BASE_MISSING = "base-missing";
/** The head was not the one the put expected; nothing was written. */
export interface HeadMoved {
  head: string | null;
}

/** What a backend's `storePut` reports. */
export type PutOutcome = typeof STORED | typeof BASE_MISSING | HeadMoved;

/**
 * The primitive operations of a backend that runs a put as several synchronous statements in
 * one transaction (SQLite, process memory). A remote backend instead sends the whole
 * `PreparedPut` in one round trip and applies the same rules on the server (a stored
 * procedure, a Lua script, a conditional batch).
 */
export interface PutSteps<Kept> {
  /** The newest checkpoint id of (thread, namespace), or null. */
  head(put: PreparedPut<Kept>): string | null;
  hasBlob(put: PreparedPut<Kept>, channel: string, version: ChannelVersion): boolean;
  writeBlob(put: PreparedPut<Kept>, blob: PreparedBlob): void;
  /** The checkpoint row, and the head moved to it unless a newer checkpoint is there already. */
  writeCheckpoint(put: PreparedPut<Kept>): void;
}

/**
 * The put algorithm for step-wise backends; call it inside the backend's write transaction.
 * Nothing is written unless the head is the expected one and every delta's base is present.
 */
export function putInSteps<Kept>(put: PreparedPut<Kept>, steps: PutSteps<Kept>): PutOutcome {
  if (put.expectedHead !== undefined) {
    const head = steps.head(put);
    if (head !== put.expectedHead) return { head };
  }
  for (const blob of put.blobs) {
    if (blob.base !== null && !steps.hasBlob(put, blob.channel, blob.base)) return BASE_MISSING;
  }
  for (const blob of put.blobs) steps.writeBlob(put, blob);
  steps.writeCheckpoint(put);
  return STORED;
}
