import { randomBytes } from "node:crypto";

/**
 * Checkpoint ids are UUIDv7-shaped: 48 bits of milliseconds then a per-process counter and
 * random bits, all hex, so that lexicographic order is creation order (the savers list
 * "newest first" by sorting ids) even for many checkpoints within one millisecond.
 */
let lastMs = 0;
let counter = 0;
/** The id's millisecond part (`xxxxxxxx-xxxx-7`) for `lastMs`: ids are made at every step, often many per millisecond. */
let msPrefix = "";
/** The id up to the counter's last hex digit, for counter block `block` (counter >>> 4) of `lastMs`. */
let blockPrefix = "";
let block = -1;
const node = randomBytes(6).toString("hex");
const nodeSuffix = node.slice(0, 11);
/** The counter's last hex digit and the node part: what follows `blockPrefix`. */
const TAILS = Array.from({ length: 16 }, (_, digit) => digit.toString(16) + nodeSuffix);

export function newCheckpointId(now = Date.now()): string {
  if (now <= lastMs) {
    counter++;
    now = lastMs;
  } else {
    lastMs = now;
    counter = 0;
    msPrefix = "";
    block = -1;
  }
  if (msPrefix === "") {
    const ms = now.toString(16).padStart(12, "0");
    msPrefix = `${ms.slice(0, 8)}-${ms.slice(8, 12)}-7`;
  }
  if (counter >>> 4 !== block) {
    block = counter >>> 4;
    const seq = counter.toString(16).padStart(8, "0");
    blockPrefix = `${msPrefix}${seq.slice(0, 3)}-${seq.slice(3, 7)}-`;
  }
  // Joined rather than a template: a template makes a rope of strings (up to ~240 bytes) that
  // a saver keeps as is (and a collector copies while it is young); join makes one flat
  // string of 56 bytes.
  return [blockPrefix, TAILS[counter & 15]].join("");
}
