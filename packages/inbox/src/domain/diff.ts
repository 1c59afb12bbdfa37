/** The differences between two states, as a flat list of paths. */
export type Change =
  | { path: string; kind: "added"; after: unknown }
  | { path: string; kind: "removed"; before: unknown }
  | { path: string; kind: "changed"; before: unknown; after: unknown };

const isPlain = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isPlain(a) && isPlain(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && deepEqual(a[k], b[k]));
  }
  return false;
}

const join = (base: string, key: string | number) =>
  base === "" ? String(key) : typeof key === "number" ? `${base}[${key}]` : `${base}.${key}`;

export function diffValues(before: unknown, after: unknown, path = ""): Change[] {
  if (deepEqual(before, after)) return [];
  if (isPlain(before) && isPlain(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
    return keys.flatMap((k) => {
      if (!(k in before)) return [{ path: join(path, k), kind: "added" as const, after: after[k] }];
      if (!(k in after)) return [{ path: join(path, k), kind: "removed" as const, before: before[k] }];
      return diffValues(before[k], after[k], join(path, k));
    });
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const out: Change[] = [];
    for (let i = 0; i < Math.max(before.length, after.length); i++) {
      if (i >= before.length) out.push({ path: join(path, i), kind: "added", after: after[i] });
      else if (i >= after.length) out.push({ path: join(path, i), kind: "removed", before: before[i] });
      else out.push(...diffValues(before[i], after[i], join(path, i)));
    }
    return out;
  }
  if (before === undefined) return [{ path: path || "(state)", kind: "added", after }];
  if (after === undefined) return [{ path: path || "(state)", kind: "removed", before }];
  return [{ path: path || "(state)", kind: "changed", before, after }];
}
