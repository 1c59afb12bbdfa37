/**
 * The head cache's private plain copies (the kit's private-copies.ts): what this saver adds is
 * its pending writes, which the cache keeps, each with a copy parsed once.
 */
import type { CheckpointMetadata, CheckpointTuple, PendingWrite, Serializer } from "@interlude/core";
import type * as Kit from "@interlude/core/saver-kit";
import { buildTuple, copiedParts, copyValue, NOT_PLAIN } from "@interlude/core/saver-kit";
import type { CachedHead, CachedWrite } from "./head-cache.js";

/** A pending write's private copy, taken when it is stored (`NOT_PLAIN`: parsed at every read). */
export function writeSeed(row: Kit.PreparedWrite): unknown {
  return copyValue(row.value);
}

/** A tuple from the copies (see `copiedParts`), with the head's writes. */
export function copiedTuple(
  threadId: string,
  ns: string,
  head: CachedHead,
  parsed: Kit.ParsedHead,
  serde: Serializer,
  learn: (channel: string, value: unknown) => void,
  readMetadata: (kept: CachedHead["metadata"]) => CheckpointMetadata,
): CheckpointTuple {
  const { record, values, metadata } = copiedParts(parsed, learn, () => readMetadata(head.metadata));
  const writes: PendingWrite[] = [];
  for (const write of head.writes) writes.push([write.taskId, write.channel, writeValue(write, serde)]);
  return buildTuple({ threadId, ns, record, values, metadata, parentId: head.parentId, writes });
}

/** A pending write's value: parsed once, then copied. */
function writeValue(write: CachedWrite, serde: Serializer): unknown {
  if (write.parsed === undefined) {
    const value = serde.loads(write.data);
    write.parsed = copyValue(value);
    return value;
  }
  return write.parsed === NOT_PLAIN ? serde.loads(write.data) : copyValue(write.parsed);
}
