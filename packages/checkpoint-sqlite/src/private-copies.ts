/**
 * The head cache's private plain copies (`ParsedHead`): made from a put's own objects or from
 * a tuple just read, and copied again for every read that the cache serves. Used only under
 * the JSON serializer, whose output a plain copy reproduces exactly (see the core's
 * plain-copy.ts); anything that is not plain data is parsed from its stored form instead.
 */
import type { CheckpointMetadata, CheckpointTuple, PendingWrite, Serializer } from "@interlude/core";
import type * as Kit from "@interlude/core/saver-kit";
import { buildTuple, copyPlain, NOT_PLAIN, recordOf } from "@interlude/core/saver-kit";
import type { CachedHead, CachedWrite, ParsedHead, PutSeed } from "./head-cache.js";

/** Parsed JSON has no cycles: values may nest this deep and still be copied. */
const VALUE_DEPTH = 64;

const copy = <T>(value: T): T | typeof NOT_PLAIN => copyPlain(value, VALUE_DEPTH);

/** Copies of what a put wrote, taken when it is stored (the caller may reuse its objects afterwards). */
export function seedOf(put: Kit.PreparedPut): PutSeed | undefined {
  const checkpoint = put.checkpoint;
  if (!checkpoint) return undefined;
  const record = copyPlain(recordOf(checkpoint));
  if (record === NOT_PLAIN) return undefined;
  const values: Record<string, unknown> = {};
  for (const { channel } of put.blobs) {
    if (!Object.hasOwn(checkpoint.channel_values, channel)) continue;
    const value = copy(checkpoint.channel_values[channel]);
    if (value === NOT_PLAIN) return undefined;
    values[channel] = value;
  }
  const metadata = put.givenMetadata === undefined ? NOT_PLAIN : copy(put.givenMetadata);
  // Not plain: parsed from its stored form at the first read (copiedTuple).
  return { record, values, metadata: metadata === NOT_PLAIN ? undefined : metadata };
}

/** A pending write's private copy, taken when it is stored (`NOT_PLAIN`: parsed at every read). */
export function writeSeed(row: Kit.PreparedWrite): unknown {
  return copy(row.value);
}

/** Copies of a tuple just read (before it is handed out), or undefined when some part is not plain data. */
export function parsedOf(tuple: CheckpointTuple): ParsedHead | undefined {
  const { channel_values, ...fields } = tuple.checkpoint;
  const record = copyPlain(fields as Kit.CheckpointRecord);
  const metadata = copy(tuple.metadata);
  if (record === NOT_PLAIN || metadata === NOT_PLAIN) return undefined;
  const values: Record<string, unknown> = {};
  for (const channel in channel_values) {
    const value = copy(channel_values[channel]);
    if (value === NOT_PLAIN) return undefined;
    values[channel] = value;
  }
  return { record, values, metadata };
}

/**
 * A tuple from the copies; `learn` is told each value, as a read from the file would tell the
 * delta planner (a run that appends to these very items then writes a delta). `readMetadata`
 * parses the stored metadata the first time a head is read.
 */
export function copiedTuple(
  threadId: string,
  ns: string,
  head: CachedHead,
  parsed: ParsedHead,
  serde: Serializer,
  learn: (channel: string, value: unknown) => void,
  readMetadata: (kept: CachedHead["metadata"]) => CheckpointMetadata,
): CheckpointTuple {
  const record = copyPlain(parsed.record) as Kit.CheckpointRecord;
  const values: Record<string, unknown> = {};
  for (const channel in parsed.values) {
    const value = copy(parsed.values[channel]);
    values[channel] = value;
    learn(channel, value);
  }
  let metadata: CheckpointMetadata;
  if (parsed.metadata === undefined) {
    metadata = readMetadata(head.metadata);
    parsed.metadata = copy(metadata) as CheckpointMetadata;
  } else metadata = copy(parsed.metadata) as CheckpointMetadata;
  const writes: PendingWrite[] = [];
  for (const write of head.writes) writes.push([write.taskId, write.channel, writeValue(write, serde)]);
  return buildTuple({ threadId, ns, record, values, metadata, parentId: head.parentId, writes });
}

/** A pending write's value: parsed once, then copied. */
function writeValue(write: CachedWrite, serde: Serializer): unknown {
  if (write.parsed === undefined) {
    const value = serde.loads(write.data);
    write.parsed = copy(value);
    return value;
  }
  return write.parsed === NOT_PLAIN ? serde.loads(write.data) : copy(write.parsed);
}
