/**
 * Deterministic ids. Task ids are computed for every task of every step, so they use a fast
 * non-cryptographic hash (two independent 32-bit FNV-1a lanes); they only need to be unique
 * within one checkpoint. Interrupt ids and answer digests, computed only when a run pauses or
 * resumes, use SHA-256 so they are safe to show and compare across machines.
 */
import * as crypto from "node:crypto";
import { canonicalJson } from "./canonical-json.js";

const PRIME = 0x01000193;
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

function hex8(n: number): string {
  return HEX[n >>> 24]! + HEX[(n >>> 16) & 255]! + HEX[(n >>> 8) & 255]! + HEX[n & 255]!;
}

/** Continues an FNV-1a hash `h` over `text`. */
function fnvOver(h: number, text: string): number {
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), PRIME);
  return h;
}

const SEED_A = 0x811c9dc5;
const SEED_B = PRIME ^ 0x5bd1e995;
const SEED_C = 0x2545f491;
const SEED_D = 0x9e3779b9;

/**
 * `fastId(prefix + suffix)` for many suffixes after one prefix (a step's task ids share all
 * but their end): the first pass over the prefix is made once, not once per id.
 */
export class FastIdsAfter {
  private readonly a: number;
  private readonly b: number;
  private readonly d: number;

  constructor(private readonly prefix: string) {
    firstPass(prefix, SEED_A, SEED_B, SEED_D);
    this.a = LANES[0]!;
    this.b = LANES[1]!;
    this.d = LANES[2]!;
  }

  id(suffix: string): string {
    firstPass(suffix, this.a, this.b, this.d);
    return idOf(LANES[0]!, LANES[1]!, LANES[2]!, this.prefix, suffix);
  }
}

/** Where `firstPass` leaves its three lanes (one buffer: an id allocates nothing for them). */
const LANES = new Int32Array(3);

/** Continues the first pass's three lanes over `text`, into LANES. */
function firstPass(text: string, a: number, b: number, d: number): void {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    a = Math.imul(a ^ code, PRIME);
    b = Math.imul(b ^ code, PRIME);
    d = Math.imul(d ^ code, PRIME);
  }
  LANES[0] = a;
  LANES[1] = b;
  LANES[2] = d;
}

/**
 * 32 hex chars, UUID-shaped: four FNV-1a lanes with different seeds, over the text, over the
 * text again, over hex(lane 2) + text, and over text + hex(lane 1). Computed in two passes
 * without building the concatenated strings. The ids must never change: stored pending
 * writes are keyed by them.
 */
export function fastId(text: string): string {
  return FROM_START.id(text);
}

const FROM_START = new FastIdsAfter("");

/** The id from the first pass's lanes over `prefix + suffix`; the second pass reads the text again. */
function idOf(a: number, b: number, d: number, prefix: string, suffix: string): string {
  const ha = hex8(a >>> 0);
  const hb = hex8(b >>> 0);
  const hc = hex8(fnvOver(fnvOver(fnvOver(SEED_C, hb), prefix), suffix) >>> 0);
  const hd = hex8(fnvOver(d, ha) >>> 0);
  return `${ha}-${hb.slice(0, 4)}-${hb.slice(4)}-${hc.slice(0, 4)}-${hc.slice(4)}${hd}`;
}

/**
 * Node's one-shot digest (from 20.12; read off the namespace, as a named import of it fails to
 * link on older releases): half the cost of a Hash object, and one runs at every pause and resume.
 */
const oneShot = (crypto as { hash?: typeof crypto.hash }).hash;

function sha256Hex(text: string, length = 32): string {
  const hex = oneShot ? oneShot("sha256", text, "hex") : crypto.createHash("sha256").update(text).digest("hex");
  return hex.slice(0, length);
}

/** Digest of an interrupt's payload: binds an answer to the question it was given for. */
export function payloadDigest(value: unknown): string {
  return sha256Hex(canonicalJson(value), 16);
}

/** Id of the interrupt asked at `slot` (position or key) by the task running in namespace `taskNs`. */
export function interruptId(taskNs: string, slot: number | string): string {
  return sha256Hex(`${taskNs}#${typeof slot === "number" ? slot : `key:${slot}`}`);
}

export const INTERRUPT_ID_PATTERN = /^[0-9a-f]{32}$/;
