/**
 * The head cache's private plain copies (the kit's private-copies.ts): what this saver adds is
 * its pending writes, which the cache keeps, each with a copy parsed once.
 */
import type { PendingWrite, Serializer } from "@interlude/core";
import type * as Kit from "@interlude/core/saver-kit";
import { copyValue, NOT_PLAIN } from "@interlude/core/saver-kit";
import type { CachedHead, CachedWrite } from "./head-cache.js";

/** A pending write's private copy, taken when it is stored (`NOT_PLAIN`: parsed at every read). */
export function writeSeed(row: Kit.PreparedWrite): unknown {
  return copyValue(row.value);
}

/** The head's pending writes, each parsed once and then copied. */
export function copiedWrites(head: CachedHead, serde: Serializer): PendingWrite[] {
  const writes: PendingWrite[] = [];
  for (const write of head.writes) writes.push([write.taskId, write.channel, writeValue(write, serde)]);
  return writes;
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
