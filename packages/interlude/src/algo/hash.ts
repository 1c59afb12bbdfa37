/**
 * Deterministic ids. Task ids are computed for every task of every step, so they use a fast
 * non-cryptographic hash (two independent 32-bit FNV-1a lanes); they only need to be unique
 * within one checkpoint. Interrupt ids and answer digests, computed only when a run pauses or
 * resumes, use SHA-256 so they are safe to show and compare across machines.
 */
import { createHash } from "node:crypto";

function fnv1a(text: string, seed: number): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function hex8(n: number): string {
  return n.toString(16).padStart(8, "0");
}

/** 32 hex chars, UUID-shaped. */
export function fastId(text: string): string {
  const a = hex8(fnv1a(text, 0x811c9dc5));
  const b = hex8(fnv1a(text, 0x01000193 ^ 0x5bd1e995));
  const c = hex8(fnv1a(b + text, 0x2545f491));
  const d = hex8(fnv1a(text + a, 0x9e3779b9));
  return `${a}-${b.slice(0, 4)}-${b.slice(4)}-${c.slice(0, 4)}-${c.slice(4)}${d}`;
}

export function sha256Hex(text: string, length = 32): string {
  return createHash("sha256").update(text).digest("hex").slice(0, length);
}

/** Canonical JSON: object keys sorted, so equal payloads digest equally whatever their key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
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
  }) ?? "undefined";
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
