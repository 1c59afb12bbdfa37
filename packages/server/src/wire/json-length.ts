/**
 * How long a value's JSON is, measured without writing it and reading no further than a limit:
 * whether a thread's state is kept in its row (store/thread-values.ts), whether a response is
 * written in parts (json-body.ts).
 */

/** What an object with `toJSON` is taken to write when it is not called and is no LangChain object. */
const TO_JSON_GUESS = 64;
/** What a LangChain message writes beside its fields (`type`, or LangChain's `lc`, `id` and `type`). */
const ENVELOPE = 16;
/**
 * Nesting past which a value counts as long, before a cycle could exhaust the stack: its JSON
 * holds two brackets a level at least, so it is longer than 1 kB (a row's search field, FIELD_LIMIT).
 */
const DEEP = 512;

/**
 * Whether `value`'s JSON (as JSON.stringify writes it, through `toJSON` as LangChain's messages
 * are written) is longer than `limit` characters, reading no further than that many. It counts
 * what the text must hold at least (a number as one digit, a string without its escapes), so
 * `true` is certain for a limit of up to 1 kB, which searchFields relies on: past that, a value
 * nested deeper than DEEP levels counts as long though its text may not be. A cycle counts as long.
 */
export function jsonLongerThan(value: unknown, limit: number): boolean {
  return longerThan(value, limit, true);
}

/**
 * The same estimate without calling `toJSON` (a live LangChain message's walks its class chain):
 * a LangChain object counts as its fields, another such object as TO_JSON_GUESS characters. So
 * `true` is not certain here.
 */
export function jsonLongerThanIgnoring(value: unknown, limit: number): boolean {
  return longerThan(value, limit, false);
}

function longerThan(value: unknown, limit: number, callToJSON: boolean): boolean {
  let left = limit;
  const over = (item: unknown, depth: number): boolean => {
    if (left < 0 || depth > DEEP) return true;
    if (item !== null && typeof item === "object" && typeof (item as { toJSON?: unknown }).toJSON === "function") {
      if (callToJSON) item = (item as { toJSON(): unknown }).toJSON();
      else {
        // A LangChain object writes its constructor's fields (`lc_kwargs`) and a short envelope.
        const fields = (item as { lc_kwargs?: unknown }).lc_kwargs;
        if (typeof fields !== "object" || fields === null) return (left -= TO_JSON_GUESS) < 0;
        left -= ENVELOPE;
        item = fields;
      }
    }
    if (typeof item === "string") left -= item.length + 2;
    else if (typeof item === "number") left -= 1;
    else if (item === null || typeof item === "boolean") left -= 4;
    // undefined, a function, a symbol: written as nothing, or as `null` in a list
    else if (typeof item !== "object") return false;
    else if (Array.isArray(item)) {
      left -= 1 + Math.max(item.length, 1);
      for (const element of item) if (over(element, depth + 1)) return true;
    } else {
      left -= 2;
      let comma = 0;
      for (const [key, field] of Object.entries(item)) {
        if (field === undefined || typeof field === "function" || typeof field === "symbol") continue;
        left -= key.length + 3 + comma;
        comma = 1;
        if (over(field, depth + 1)) return true;
      }
    }
    return left < 0;
  };
  return over(value, 0);
}
