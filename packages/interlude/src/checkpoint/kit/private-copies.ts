/**
 * A head cache's private plain copies of the newest checkpoint: made from a put's own objects
 * or from a tuple just read, and copied again for every read the cache serves (~25x cheaper than
 * parsing the stored form). Only under the JSON serializer, whose output a plain copy reproduces
 * exactly (plain-copy.ts); anything that is not plain data is parsed from its stored form instead.
 * Never handed out; nothing changes them.
 */

import type { KnownValue } from "../delta.js";
import type { ChainLink } from "../delta-chain.js";
import { copyPlain, NOT_PLAIN } from "../plain-copy.js";
import type { PreparedPut } from "../prepare.js";
import { type CheckpointRecord, recordOf } from "../tuple.js";
import type { ChannelVersion, CheckpointMetadata, CheckpointTuple } from "../types.js";

/** Private plain copies of a head's record, values and metadata. */
export interface ParsedHead {
  readonly record: CheckpointRecord;
  readonly values: Readonly<Record<string, unknown>>;
  /** Undefined until the first read when the put's metadata was not plain data (parsed then from its stored form). */
  metadata?: CheckpointMetadata;
}

/** What a put's own objects give: the record, the metadata and the values of the channels it wrote. */
export interface PutSeed {
  readonly record: CheckpointRecord;
  readonly metadata: CheckpointMetadata | undefined;
  /** Written channels that have a value; a written channel missing here has none. */
  readonly values: Readonly<Record<string, unknown>>;
}

/** Parsed JSON has no cycles: values may nest this deep and still be copied. */
const VALUE_DEPTH = 64;

export const copyValue = <T>(value: T): T | typeof NOT_PLAIN => copyPlain(value, VALUE_DEPTH);

/** Copies of what a put wrote, taken when it is stored (the caller may reuse its objects afterwards). */
export function seedOf(put: PreparedPut<unknown>): PutSeed | undefined {
  const checkpoint = put.checkpoint;
  if (!checkpoint) return undefined;
  const record = copyPlain(recordOf(checkpoint));
  if (record === NOT_PLAIN) return undefined;
  const values: Record<string, unknown> = {};
  for (const { channel } of put.blobs) {
    if (!Object.hasOwn(checkpoint.channel_values, channel)) continue;
    const value = copyValue(checkpoint.channel_values[channel]);
    if (value === NOT_PLAIN) return undefined;
    values[channel] = value;
  }
  const metadata = put.givenMetadata === undefined ? NOT_PLAIN : copyValue(put.givenMetadata);
  // Not plain: parsed from its stored form at the first read (copiedParts).
  return { record, values, metadata: metadata === NOT_PLAIN ? undefined : metadata };
}

/**
 * The copies of the head a put makes: the put's own, and those of the head it replaced
 * (`previous`) for the channels it did not write; undefined when one of those is not known.
 */
export function parsedAfter(
  put: PreparedPut<unknown>,
  seed: PutSeed,
  previous: ParsedHead | undefined,
): ParsedHead | undefined {
  const values: Record<string, unknown> = {};
  const written = new Set<string>();
  for (const blob of put.blobs) written.add(blob.channel);
  for (const channel in put.versions) {
    if (written.has(channel)) {
      if (Object.hasOwn(seed.values, channel)) values[channel] = seed.values[channel];
      continue;
    }
    // Kept from the previous head only at the very version it had there (a fork starts elsewhere).
    if (!previous || previous.record.channel_versions[channel] !== put.versions[channel]) return undefined;
    if (Object.hasOwn(previous.values, channel)) values[channel] = previous.values[channel];
  }
  return { record: seed.record, values, metadata: seed.metadata };
}

/** Copies of a tuple just read (before it is handed out), or undefined when some part is not plain data. */
export function parsedOf(tuple: CheckpointTuple): ParsedHead | undefined {
  const { channel_values, ...fields } = tuple.checkpoint;
  const record = copyPlain(fields as CheckpointRecord);
  const metadata = copyValue(tuple.metadata);
  if (record === NOT_PLAIN || metadata === NOT_PLAIN) return undefined;
  const values: Record<string, unknown> = {};
  for (const channel in channel_values) {
    const value = copyValue(channel_values[channel]);
    if (value === NOT_PLAIN) return undefined;
    values[channel] = value;
  }
  return { record, values, metadata };
}

/**
 * Fresh copies of a head's record, values and metadata, for one read. `learn` is told each value,
 * as a read from storage would tell the delta planner (a run that appends to these very items
 * then writes a delta). `readMetadata` parses the stored metadata the first time it is needed.
 */
export function copiedParts(
  parsed: ParsedHead,
  learn: (channel: string, value: unknown) => void,
  readMetadata: () => CheckpointMetadata,
): { record: CheckpointRecord; values: Record<string, unknown>; metadata: CheckpointMetadata } {
  const record = copyPlain(parsed.record) as CheckpointRecord;
  const values: Record<string, unknown> = {};
  for (const channel in parsed.values) {
    const value = copyValue(parsed.values[channel]);
    values[channel] = value;
    learn(channel, value);
  }
  if (parsed.metadata !== undefined)
    return { record, values, metadata: copyValue(parsed.metadata) as CheckpointMetadata };
  const metadata = readMetadata();
  // Metadata that is not plain data (a Date a caller put in it) stays parsed at every read.
  const kept = copyValue(metadata);
  if (kept !== NOT_PLAIN) parsed.metadata = kept;
  return { record, values, metadata };
}

/**
 * The values of a head replaced since (another process wrote the thread), as values already
 * read at the versions it had: a load of the newest checkpoint copies those instead of parsing
 * them, and builds a list appended to since on a copy of the held one (assembleValue's `known`).
 * `holds`: the versions whose stored form is known to be unchanged; `chainAt`: the chain a read
 * of a version goes through, where the caller knows it.
 */
export function knownValues(
  parsed: ParsedHead,
  holds: (channel: string, version: ChannelVersion) => boolean,
  chainAt: (channel: string, version: ChannelVersion) => readonly ChainLink[] | undefined,
): KnownValue {
  const versions = parsed.record.channel_versions;
  return (channel, version) => {
    if (versions[channel] !== version || !Object.hasOwn(parsed.values, channel) || !holds(channel, version))
      return undefined;
    return { value: copyValue(parsed.values[channel]), chain: chainAt(channel, version) };
  };
}
