/** Timestamps of checkpoints and resume records, as ISO strings. */

let isoMs = -1;
let iso = "";

/**
 * `new Date().toISOString()`, made once per millisecond: a checkpoint timestamp is taken at
 * every step, and a resume record's at every resume.
 */
export function isoNow(): string {
  const now = Date.now();
  if (now !== isoMs) {
    isoMs = now;
    iso = new Date(now).toISOString();
  }
  return iso;
}
