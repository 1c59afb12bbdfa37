/**
 * A JSON response's body, in LangGraph Server's message shape (wire/messages.ts). A small value is
 * one string, as `wireJson` writes it. A large one (an agent's state of a few hundred kB, a search
 * listing such threads) is written part by part into bytes and never held as one string: V8 keeps
 * a JSON.stringify result as a rope, and the response's encoding first copies it into one flat
 * string, which past 128 kB V8 allocates in pages of its own, mapped, faulted in page by page and
 * unmapped again at the next GC. For 200 kB that was a millisecond, half of it in the kernel;
 * written in parts, 0.4 ms in all (PERFORMANCE.md, "Large responses").
 *
 * The bytes are those JSON.stringify would write: only lists and objects it writes key by key are
 * opened, and everything else (a value with `toJSON`, a LangChain form, a boxed primitive, a
 * primitive) is written by JSON.stringify itself, `toJSON` called with the key it has in its holder.
 */
import { jsonLongerThanIgnoring } from "./json-length.js";
import { isLiveMessage, isSerialisedMessage, wireJson } from "./messages.js";

/** JSON text past which a value is written in parts (estimated, see `jsonLongerThanIgnoring`). */
const LARGE = 120 * 1024;
/** The bytes each part is encoded into, before they are joined. */
const CHUNK = 64 * 1024;
/** Containers opened at most this deep (a search listing: list, thread, values, a list in them). */
const MAX_DEPTH = 4;

/** `value`'s JSON in LangGraph Server's message shape: a string, or bytes when it is large. */
export function jsonBody(value: unknown): string | Buffer {
  if (!opens(value, 0)) return wireJson(value);
  const out = new Parts();
  writeContainer(value, 0, out);
  return out.bytes();
}

/** Whether `value` is written container by container: a large plain object or list, not too deep. */
function opens(value: unknown, depth: number): value is object {
  if (depth >= MAX_DEPTH || typeof value !== "object" || value === null) return false;
  if (typeof (value as { toJSON?: unknown }).toJSON === "function" || isSerialisedMessage(value)) return false;
  // JSON.stringify writes boxed primitives as their primitive, not as their keys.
  if (value instanceof String || value instanceof Number || value instanceof Boolean) return false;
  return jsonLongerThanIgnoring(value, LARGE);
}

function writeContainer(value: object, depth: number, out: Parts): void {
  if (Array.isArray(value)) {
    out.add("[");
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.add(",");
      if (!writeElement(value[i], i, depth + 1, out)) out.add("null");
    }
    out.add("]");
    return;
  }
  out.add("{");
  let comma = "";
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (writeMember(record[key], key, depth + 1, out, `${comma}${JSON.stringify(key)}:`)) comma = ",";
  }
  out.add("}");
}

/**
 * Writes `prefix` and a member's JSON; false when JSON.stringify leaves it out (undefined, a
 * function, a symbol, or a `toJSON` that gives one of them), and nothing is written.
 */
function writeMember(value: unknown, key: string, depth: number, out: Parts, prefix: string): boolean {
  if (opens(value, depth)) {
    out.add(prefix);
    writeContainer(value, depth, out);
    return true;
  }
  const text = memberJson(value, key);
  if (text === undefined) return false;
  out.add(prefix);
  out.add(text);
  return true;
}

/**
 * A list's element: written by JSON.stringify first, which costs less than measuring it for the
 * many small elements of a long list; one that proves large (a thread in a search listing) is
 * written again in parts.
 */
function writeElement(value: unknown, index: number, depth: number, out: Parts): boolean {
  const text = memberJson(value, String(index));
  if (text === undefined) return false;
  if (text.length > LARGE && opens(value, depth)) writeContainer(value, depth, out);
  else out.add(text);
  return true;
}

/**
 * A member's JSON as its holder's serialisation would write it: `toJSON` gets the member's key.
 * A live message's is never called (wireJson writes it through `wireMessage`), so it needs no holder.
 */
function memberJson(value: unknown, key: string): string | undefined {
  if (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { toJSON?: unknown }).toJSON === "function" &&
    !isLiveMessage(value)
  ) {
    // Written inside a holder of its own, so that `toJSON(key)` sees its key, then cut out of it.
    const held = wireJson({ [key]: value });
    const start = JSON.stringify(key).length + 2;
    return held.length > start ? held.slice(start, -1) : undefined;
  }
  return wireJson(value);
}

/**
 * The body's bytes, each part encoded as it comes into chunks of CHUNK bytes or more, then joined
 * once. Parts are short strings (a list's element, a key, a comma): encoding them one by one never
 * builds a long string.
 */
class Parts {
  private readonly full: Buffer[] = [];
  private length = 0;
  private chunk = Buffer.allocUnsafe(CHUNK);
  private at = 0;

  add(text: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    if (this.at + 3 * text.length > this.chunk.length) {
      this.close();
      this.chunk = Buffer.allocUnsafe(Math.max(CHUNK, 3 * text.length));
    }
    this.at += this.chunk.write(text, this.at);
  }

  bytes(): Buffer {
    this.close();
    return Buffer.concat(this.full, this.length);
  }

  private close(): void {
    this.full.push(this.chunk.subarray(0, this.at));
    this.length += this.at;
    this.at = 0;
  }
}
