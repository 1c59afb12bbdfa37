/**
 * Canonical JSON of an interrupt's payload: object keys sorted, so equal payloads digest equally
 * whatever their key order. Stored digests were made by `JSON.stringify` with a replacer that
 * sorted each object's keys into a copy (and wrote undefined as "__undefined__", a BigInt as
 * "<n>n", a Map as { __map__: entries }, a Set as { __set__: values }); this writes the very same
 * text directly. A replacer made every value a call from C++ into JavaScript and every object a
 * copy: ~5 µs for a two-key question, paid when a node pauses and again when it resumes.
 */

/** Nesting past which the replacer itself writes the text (deep or cyclic payloads, with its very errors). */
const MAX_DEPTH = 64;
const TOO_DEEP = Symbol("too deep");

export function canonicalJson(value: unknown): string {
  try {
    return serialise("", value, 0) ?? "undefined";
  } catch (error) {
    if (error !== TOO_DEEP) throw error;
    return replacerJson(value);
  }
}

/**
 * The text as stored digests were made: JSON.stringify with a replacer that sorts a copy of each
 * object. The reference canonicalJson is tested against; it writes deep or cyclic payloads.
 */
export function replacerJson(value: unknown): string {
  return (
    JSON.stringify(value, (_key, v: unknown) => {
      if (v === undefined) return "__undefined__";
      if (typeof v === "bigint") return `${v}n`;
      if (v instanceof Map) return { __map__: [...v.entries()] };
      if (v instanceof Set) return { __set__: [...v.values()] };
      if (v && typeof v === "object" && !Array.isArray(v) && !(v instanceof Date)) {
        const sorted: Record<string, unknown> = {};
        for (const k of Object.keys(v as object).sort()) sorted[k] = (v as Record<string, unknown>)[k];
        return sorted;
      }
      return v;
    }) ?? "undefined"
  );
}

/** What JSON.stringify writes for `raw` under `key`: toJSON first, then the replacer's rules. */
function serialise(key: string, raw: unknown, depth: number): string | undefined {
  let value = raw;
  if ((typeof value === "object" && value !== null) || typeof value === "bigint" || typeof value === "function") {
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") value = toJSON.call(value, key);
  }
  switch (typeof value) {
    case "undefined":
      return '"__undefined__"';
    case "string":
      return quote(value);
    case "number":
      return Number.isFinite(value) ? String(value) : "null";
    case "boolean":
      return value ? "true" : "false";
    case "bigint":
      return JSON.stringify(`${value}n`);
    case "object":
      if (value === null) return "null";
      if (depth >= MAX_DEPTH) throw TOO_DEEP;
      if (Array.isArray(value)) return serialiseArray(value, depth + 1);
      if (value instanceof Map) return `{"__map__":${serialiseArray([...value.entries()], depth + 2)}}`;
      if (value instanceof Set) return `{"__set__":${serialiseArray([...value.values()], depth + 2)}}`;
      // A Date reaches here only without its toJSON: the replacer left it as is, an object of its own keys.
      if (value instanceof Date) return serialiseObject(value as object, Object.keys(value), depth + 1);
      return serialiseObject(value, sortedKeys(value), depth + 1);
    default:
      // Functions and symbols: left out of objects, null in arrays.
      return undefined;
  }
}

function serialiseArray(values: readonly unknown[], depth: number): string {
  let out = "[";
  for (let i = 0; i < values.length; i++) {
    if (i > 0) out += ",";
    out += serialise(String(i), values[i], depth) ?? "null";
  }
  return `${out}]`;
}

function serialiseObject(value: object, keys: readonly string[], depth: number): string {
  let out = "{";
  let first = true;
  for (const key of keys) {
    const text = serialise(key, (value as Record<string, unknown>)[key], depth);
    if (text === undefined) continue;
    out += `${first ? "" : ","}${quote(key)}:${text}`;
    first = false;
  }
  return `${out}}`;
}

/**
 * The keys of the replacer's sorted copy, in the order JSON.stringify read them from it. The copy
 * was filled by assignment, so a `__proto__` key set its prototype instead of a key; and it
 * enumerated array-index keys first, so with any key that starts with a digit the copy is made.
 */
function sortedKeys(value: object): string[] {
  const keys = Object.keys(value).sort();
  let plain = true;
  for (const key of keys) if (key === "__proto__" || startsWithDigit(key)) plain = false;
  if (plain) return keys;
  const copy: Record<string, true> = {};
  for (const key of keys) copy[key] = true;
  return Object.keys(copy);
}

/** V8 enumerates array-index keys (which start with a digit) before the others: a sorted copy reorders them. */
function startsWithDigit(key: string): boolean {
  const code = key.charCodeAt(0);
  return code >= 48 && code <= 57;
}

/** A JSON string literal: JSON.stringify's, whose call costs more than the check for what it would escape. */
function quote(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    // Control characters, quote, backslash, surrogates (a lone one is escaped).
    if (code < 0x20 || code === 0x22 || code === 0x5c || (code >= 0xd800 && code <= 0xdfff))
      return JSON.stringify(text);
  }
  return `"${text}"`;
}
