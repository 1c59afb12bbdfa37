import { SerializationError } from "../errors/storage.js";
import { langchainForm, reviveLangChain } from "./serde-langchain.js";
import { classOf, type Registration, registeredByName } from "./serde-registry.js";

export { registerSerializable, type SerializableOptions } from "./serde-registry.js";

/**
 * Turns stored values into bytes and back. Savers accept a custom one; the default is
 * `JsonSerializer`. `path` names the value in error messages (`state.items[3].client`).
 */
export interface Serializer {
  dumps(value: unknown, path?: string): string | Uint8Array;
  loads(data: string | Uint8Array): unknown;
}

/**
 * JSON with tagged objects for what JSON cannot say (Date, Map, Set, BigInt, undefined,
 * bytes, NaN/±Infinity/-0, Error, registered classes, LangChain messages and documents). Output that needed no tag is plain
 * JSON; tagged output starts with `~`, so reading plain output is a bare `JSON.parse`.
 *
 * Speed: most state is plain data, so `dumps` first checks plainness with an allocation-free
 * walk and hands plain values straight to `JSON.stringify` (about 1.3x its cost); only values
 * that need tags take the slower encoding walk.
 */
export class JsonSerializer implements Serializer {
  dumps(value: unknown, path = "value"): string {
    if (isPlain(value, 0)) return JSON.stringify(value);
    return TAGGED + JSON.stringify(encode(value, path, []));
  }

  loads(data: string | Uint8Array): unknown {
    const text = typeof data === "string" ? data : decoder.decode(data);
    if (text.charCodeAt(0) !== TAGGED_CODE) return JSON.parse(text);
    return decode(JSON.parse(text.slice(1)));
  }
}

export const defaultSerializer: Serializer = new JsonSerializer();

const TAGGED = "~";
const TAGGED_CODE = TAGGED.charCodeAt(0);
/** Key marking a tagged object. A user object that has this key is itself wrapped. */
const TAG = "__t";
/** Deeper than this, plainness is not checked and the (cycle-safe) encoder runs instead. */
const MAX_PLAIN_DEPTH = 64;
const decoder = new TextDecoder();

/** `JSON.parse(JSON.stringify(value))` gives `value` back exactly (what `JsonSerializer` writes untagged). */
export function isJsonExact(value: unknown): boolean {
  return isPlain(value, 0);
}

function isPlain(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value) && (value !== 0 || 1 / value > 0);
    case "object": {
      if (value === null) return true;
      if (depth > MAX_PLAIN_DEPTH) return false;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          // Holes read as undefined too; JSON would turn both into null.
          if (value[i] === undefined || !isPlain(value[i], depth + 1)) return false;
        }
        return true;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return false;
      for (const key in value) {
        const item = (value as Record<string, unknown>)[key];
        if (item === undefined || key === TAG || !isPlain(item, depth + 1)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function tagged(tag: string, v: Json, extra?: Record<string, Json>): Json {
  return { [TAG]: tag, v, ...extra };
}

/** Thrown inside the encoder; the path is completed while the stack unwinds. */
class PathError extends Error {
  constructor(
    readonly what: string,
    readonly segments: string[],
  ) {
    super(what);
  }
}

function encode(value: unknown, root: string, stack: object[]): Json {
  try {
    return encodeAny(value, stack);
  } catch (error) {
    if (error instanceof PathError) {
      const path = root + error.segments.reverse().join("");
      throw new SerializationError(
        `Cannot store ${error.what} at ${path}. Store plain data, or register the class with registerSerializable(name, Class).`,
      );
    }
    throw error;
  }
}

function child(value: unknown, segment: string, stack: object[]): Json {
  try {
    return encodeAny(value, stack);
  } catch (error) {
    if (error instanceof PathError) error.segments.push(segment);
    throw error;
  }
}

function keySegment(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

function encodeAny(value: unknown, stack: object[]): Json {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return encodeNumber(value);
    case "undefined":
      return tagged("u", null);
    case "bigint":
      return tagged("n", value.toString());
    case "function":
      throw new PathError(`a function (${value.name || "anonymous"})`, []);
    case "symbol":
      throw new PathError(`a symbol (${value.toString()})`, []);
  }
  if (value === null) return null;
  const object = value as object;
  if (stack.includes(object)) throw new PathError("a circular reference", []);
  stack.push(object);
  try {
    return encodeObject(object, stack);
  } finally {
    stack.pop();
  }
}

function encodeNumber(value: number): Json {
  if (Number.isFinite(value) && (value !== 0 || 1 / value > 0)) return value;
  return tagged("f", Object.is(value, -0) ? "-0" : String(value));
}

function encodeObject(value: object, stack: object[]): Json {
  if (Array.isArray(value)) return encodeArray(value, stack);
  const proto = Object.getPrototypeOf(value);
  if (proto === Object.prototype || proto === null) {
    const fields = encodeFields(value as Record<string, unknown>, stack);
    return Object.hasOwn(value, TAG) ? tagged("o", fields) : fields;
  }
  const registered = classOf(value);
  if (registered) return encodeRegistered(value, registered, stack);
  if (value instanceof Date) return tagged("d", Number.isNaN(value.getTime()) ? null : value.getTime());
  if (value instanceof Map) return tagged("m", encodeArray([...value], stack));
  if (value instanceof Set) return tagged("s", encodeArray([...value], stack));
  if (value instanceof Uint8Array) return encodeBytes(value);
  if (value instanceof RegExp) return tagged("r", value.source, { f: value.flags });
  if (value instanceof Error) return encodeError(value, stack);
  const lc = langchainForm(value);
  if (lc) return tagged("l", child(lc.kwargs, "", stack), { c: lc.id });
  const name = (proto as { constructor?: { name?: string } })?.constructor?.name ?? "unknown";
  throw new PathError(`an instance of unregistered class ${name}`, []);
}

function encodeArray(value: readonly unknown[], stack: object[]): Json[] {
  const out: Json[] = new Array(value.length);
  for (let i = 0; i < value.length; i++) out[i] = child(value[i], `[${i}]`, stack);
  return out;
}

function encodeFields(value: Record<string, unknown>, stack: object[]): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const key of Object.keys(value)) setOwn(out, key, child(value[key], keySegment(key), stack));
  return out;
}

/** `out[key] = value`, except that a `__proto__` key stays data instead of changing the prototype. */
function setOwn(out: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__")
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}

function encodeBytes(value: Uint8Array): Json {
  const base64 = Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("base64");
  return tagged(Buffer.isBuffer(value) ? "B" : "y", base64);
}

function encodeError(value: Error, stack: object[]): Json {
  const fields: Record<string, unknown> = { ...value, name: value.name, message: value.message, stack: value.stack };
  if (value.cause !== undefined) fields.cause = value.cause;
  return tagged("e", encodeFields(fields, stack));
}

function encodeRegistered(value: object, registration: Registration, stack: object[]): Json {
  const data = registration.toJSON ? registration.toJSON(value) : { ...value };
  return tagged("c", child(data, "", stack), { c: registration.name });
}

function decode(value: Json): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(decode);
  const tag = value[TAG];
  if (typeof tag !== "string") return decodeFields(value);
  return decodeTagged(tag, value);
}

function decodeFields(value: { [key: string]: Json }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) setOwn(out, key, decode(value[key]!));
  return out;
}

function decodeTagged(tag: string, record: { [key: string]: Json }): unknown {
  const v = record.v!;
  switch (tag) {
    case "u":
      return undefined;
    case "f":
      return v === "-0" ? -0 : Number(v);
    case "n":
      return BigInt(v as string);
    case "o":
      return decodeFields(v as { [key: string]: Json });
    case "d":
      return new Date(v === null ? Number.NaN : (v as number));
    case "m":
      return new Map(decode(v) as Array<[unknown, unknown]>);
    case "s":
      return new Set(decode(v) as unknown[]);
    case "y":
      return new Uint8Array(Buffer.from(v as string, "base64"));
    case "B":
      return Buffer.from(v as string, "base64");
    case "r":
      return new RegExp(v as string, record.f as string);
    case "e":
      return decodeError(decodeFields(v as { [key: string]: Json }));
    case "c":
      return decodeRegistered(record.c as string, decode(v));
    case "l":
      return reviveLangChain(record.c as string[], decode(v));
  }
  throw new SerializationError(`Stored value has unknown tag "${tag}"; it was written by a newer Interlude.`);
}

function decodeError(fields: Record<string, unknown>): Error {
  const error = new Error(String(fields.message ?? ""));
  Object.assign(error, fields);
  return error;
}

function decodeRegistered(name: string, data: unknown): unknown {
  const registration = registeredByName(name);
  if (!registration) {
    throw new SerializationError(
      `Stored value is an instance of "${name}", which is not registered in this process. Call registerSerializable("${name}", Class) before loading.`,
    );
  }
  if (registration.fromJSON) return registration.fromJSON(data);
  return Object.assign(Object.create(registration.Class.prototype as object) as object, data);
}
