/**
 * Pure rules every store shares: which namespaces are valid, which items a filter keeps,
 * which namespaces a listing returns. The stores only fetch and write rows.
 */
import { isDeepStrictEqual } from "node:util";
import { InvalidNamespaceError } from "../errors/store.js";
import type { Item, ListNamespacesOperation, MatchCondition } from "./types.js";

/** Labels are joined with "." in storage keys, so a label may not contain one. */
export const NS_JOIN = ".";

export function validateNamespace(namespace: readonly unknown[], options: { allowEmpty?: boolean } = {}): void {
  if (!Array.isArray(namespace)) throw new InvalidNamespaceError(`Namespace ${String(namespace)} is not an array.`);
  if (namespace.length === 0) {
    if (options.allowEmpty) return;
    throw new InvalidNamespaceError("Namespace cannot be empty.");
  }
  for (const label of namespace) {
    if (typeof label !== "string")
      throw new InvalidNamespaceError(
        `Namespace label ${String(label)} in [${namespace.join(", ")}] is a ${typeof label}.`,
      );
    if (label === "") throw new InvalidNamespaceError(`Namespace [${namespace.join(", ")}] has an empty label.`);
    if (label.includes(".") || label.includes(":") || label.includes("\0"))
      throw new InvalidNamespaceError(`Namespace label "${label}" contains ".", ":" or NUL.`);
  }
}

const isIn = (actual: unknown, operand: unknown) =>
  Array.isArray(operand) && operand.some((v) => isDeepStrictEqual(actual, v));

/** LangGraph's filter operators; comparisons are numeric, as in LangGraph. */
const OPERATORS: Record<string, (actual: unknown, operand: unknown) => boolean> = {
  $eq: (actual, operand) => isDeepStrictEqual(actual, operand),
  $ne: (actual, operand) => !isDeepStrictEqual(actual, operand),
  $gt: (actual, operand) => Number(actual) > Number(operand),
  $gte: (actual, operand) => Number(actual) >= Number(operand),
  $lt: (actual, operand) => Number(actual) < Number(operand),
  $lte: (actual, operand) => Number(actual) <= Number(operand),
  $in: isIn,
  $nin: (actual, operand) => !isIn(actual, operand),
};

function isOperators(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length > 0 && keys.every((k) => k in OPERATORS);
}

function fieldMatches(actual: unknown, wanted: unknown): boolean {
  if (!isOperators(wanted)) return isDeepStrictEqual(actual, wanted);
  return Object.entries(wanted).every(([op, operand]) => OPERATORS[op]!(actual, operand));
}

/** Whether an item's value has every field of `filter` (equal, or satisfying `$gt`, `$in`...). */
export function matchesFilter(value: Record<string, unknown>, filter: Record<string, unknown> | undefined): boolean {
  if (!filter) return true;
  for (const [field, wanted] of Object.entries(filter)) if (!fieldMatches(value[field], wanted)) return false;
  return true;
}

export function hasPrefix(namespace: readonly string[], prefix: readonly string[]): boolean {
  if (prefix.length > namespace.length) return false;
  for (let i = 0; i < prefix.length; i++) if (namespace[i] !== prefix[i]) return false;
  return true;
}

function conditionHolds(condition: MatchCondition, namespace: readonly string[]): boolean {
  const { path, matchType } = condition;
  if (path.length > namespace.length) return false;
  const offset = matchType === "suffix" ? namespace.length - path.length : 0;
  return path.every((label, i) => label === "*" || namespace[offset + i] === label);
}

/** The answer to `listNamespaces()` from every namespace that holds an item. */
export function listNamespaces(all: readonly string[][], op: ListNamespacesOperation): string[][] {
  const conditions = op.matchConditions ?? [];
  const kept = new Map<string, string[]>();
  for (const namespace of all) {
    if (!conditions.every((c) => conditionHolds(c, namespace))) continue;
    const cut = namespace.slice(0, op.maxDepth);
    kept.set(cut.join(NS_JOIN), cut);
  }
  const sorted = [...kept.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, ns]) => ns);
  const offset = op.offset ?? 0;
  return sorted.slice(offset, op.limit === undefined ? undefined : offset + op.limit);
}

/** A copy the caller may change without changing what the store holds. */
export function copyItem<T extends Item>(item: T): T {
  return { ...item, namespace: [...item.namespace], value: structuredClone(item.value) };
}
