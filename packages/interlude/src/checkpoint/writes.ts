import { WRITES_IDX_MAP } from "../constants.js";

/** One pending write as stored: `idx` orders a task's writes; reserved channels have a fixed negative idx. */
export interface WriteRow {
  idx: number;
  channel: string;
  value: unknown;
  /** true: replaces the task's earlier write at this idx; false: kept only if the slot is free. */
  replace: boolean;
}

/**
 * Applies the pending-write rule of the storage contract: writes to the reserved channels in
 * `WRITES_IDX_MAP` take that channel's fixed idx and replace the task's earlier write there (a
 * task has one error, one interrupt list, one resume list at a time); other writes take idx
 * 0..n-1 in the order given and never overwrite, so a retried `putWrites` cannot duplicate them.
 */
export function writeRows(writes: ReadonlyArray<readonly [string, unknown]>): WriteRow[] {
  return writes.map(([channel, value], i) => {
    const reserved = WRITES_IDX_MAP[channel];
    return reserved === undefined
      ? { idx: i, channel, value, replace: false }
      : { idx: reserved, channel, value, replace: true };
  });
}
