/** Timestamps of checkpoints and resume records, as ISO strings. */

/** The second `isoSecond` is of (ms since the epoch / 1000), and its ISO text up to the milliseconds. */
let second = Number.NaN;
let isoSecond = "";
const MS = Array.from({ length: 1000 }, (_, ms) => `${String(ms).padStart(3, "0")}Z`);

/**
 * `new Date().toISOString()`, its text up to the second made once per second: a checkpoint
 * timestamp is taken at every step, a resume record's at every resume, and toISOString costs
 * ~1 µs where appending the milliseconds costs a few ns.
 */
export function isoNow(): string {
  const now = Date.now();
  const s = Math.floor(now / 1000);
  if (s !== second) {
    second = s;
    const iso = new Date(s * 1000).toISOString();
    // "…:SS.000Z" -> "…:SS."
    isoSecond = iso.slice(0, iso.length - 4);
  }
  return isoSecond + MS[now - s * 1000];
}
