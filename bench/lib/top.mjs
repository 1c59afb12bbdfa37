/**
 * Self and total time per function of a .cpuprofile: `node bench/lib/top.mjs file [count] [under]`.
 * `under`, a regular expression: only samples with a frame whose "name file:line" matches (e.g.
 * `"getState|thread/snapshot"` for getState and its promise continuation), as a share of those.
 */
import { readFileSync } from "node:fs";

const profile = JSON.parse(readFileSync(process.argv[2], "utf8"));
const count = Number(process.argv[3] ?? 30);
const under = process.argv[4] ? new RegExp(process.argv[4]) : undefined;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const key = (n) =>
  `${n.callFrame.functionName || "(anon)"} ${n.callFrame.url.split("/").slice(-2).join("/")}:${n.callFrame.lineNumber + 1}`;
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const kept = (id) => {
  for (let at = id; at !== undefined; at = parent.get(at)) if (under.test(key(byId.get(at)))) return true;
  return false;
};
const samples = under ? profile.samples.filter(kept) : profile.samples;
const selfTicks = new Map();
for (const id of samples) selfTicks.set(id, (selfTicks.get(id) ?? 0) + 1);
const total = samples.length;
const self = new Map();
const inclusive = new Map();
for (const [id, ticks] of selfTicks) {
  const n = byId.get(id);
  self.set(key(n), (self.get(key(n)) ?? 0) + ticks);
  const seen = new Set();
  for (let at = id; at !== undefined; at = parent.get(at)) {
    const k = key(byId.get(at));
    if (seen.has(k)) continue;
    seen.add(k);
    inclusive.set(k, (inclusive.get(k) ?? 0) + ticks);
  }
}
const pct = (t) => `${((100 * t) / total).toFixed(1)}%`.padStart(6);
console.log("SELF");
for (const [k, t] of [...self].sort((a, b) => b[1] - a[1]).slice(0, count)) console.log(pct(t), k);
console.log("\nTOTAL");
for (const [k, t] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, count)) console.log(pct(t), k);

// Hottest source lines (self time), from the profile's position ticks.
const lines = new Map();
for (const n of profile.nodes) {
  if (under && !kept(n.id)) continue;
  for (const p of n.positionTicks ?? []) {
    const k = `${n.callFrame.url.split("/").slice(-2).join("/")}:${p.line} (${n.callFrame.functionName || "anon"})`;
    lines.set(k, (lines.get(k) ?? 0) + p.ticks);
  }
}
console.log("\nLINES");
for (const [k, t] of [...lines].sort((a, b) => b[1] - a[1]).slice(0, count)) console.log(pct(t), k);
