/**
 * The sequence of a `batch()`, written once for every store: validate, answer the reads
 * against the state before the batch, then apply the writes (the last write of a key wins)
 * in one go. A backend supplies four primitives over its own storage.
 */
import { UnsupportedStoreOptionError } from "../errors/store.js";
import { BaseStore } from "./base.js";
import { refuseStoreOptions } from "./known-options.js";
import { hasPrefix, listNamespaces, matchesFilter, NS_JOIN, validateNamespace } from "./match.js";
import {
  type Item,
  isGet,
  isPut,
  isSearch,
  type Operation,
  type OperationResults,
  type PutOperation,
  type SearchItem,
  type SearchOperation,
} from "./types.js";

/**
 * An item as the SQL stores keep it: the namespace joined with ".", the value as JSON text (or
 * already parsed), the times as epoch ms (or Dates).
 */
export interface ItemRow {
  namespace: string;
  key: string;
  value: string | Record<string, unknown>;
  created_at: number | Date;
  updated_at: number | Date;
}

export abstract class StoreKit extends BaseStore {
  /** The item at `namespace` / `key`, or null. */
  protected abstract readItem(namespace: string[], key: string): Promise<Item | null>;
  /** Every item whose namespace starts with `prefix` (all items for an empty prefix), oldest first. */
  protected abstract readItemsUnder(prefix: string[]): Promise<Item[]>;
  /** Every distinct namespace that holds at least one item. */
  protected abstract readNamespaces(): Promise<string[][]>;
  /** Applies the writes atomically; a `null` value deletes. Keys are distinct. */
  protected abstract writeItems(puts: PutOperation[], now: Date): Promise<void>;

  /**
   * For a store's constructor: refuses an option it does not take (`UnsupportedStoreOptionError`).
   * `unsupported`: LangGraph.js's options the store refuses, each with what to do instead.
   */
  protected refuseOptions(
    options: object | undefined,
    known: readonly string[],
    unsupported: Readonly<Record<string, string>> = {},
  ): void {
    refuseStoreOptions(this.constructor.name, options, known, unsupported);
  }

  /** An item from its stored row (see `ItemRow`). */
  protected itemOf(row: ItemRow): Item {
    return {
      namespace: row.namespace.split(NS_JOIN),
      key: row.key,
      value: typeof row.value === "string" ? JSON.parse(row.value) : row.value,
      createdAt: new Date(row.created_at),
      updatedAt: new Date(row.updated_at),
    };
  }

  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    for (const op of operations) checkOperation(op);
    const results: unknown[] = [];
    const puts = new Map<string, PutOperation>();
    for (const op of operations) {
      if (isPut(op)) {
        puts.set(`${op.namespace.join(NS_JOIN)}\0${op.key}`, op);
        results.push(undefined);
      } else if (isGet(op)) results.push(await this.readItem(op.namespace, op.key));
      else if (isSearch(op)) results.push(await this.searchItems(op));
      else results.push(listNamespaces(await this.readNamespaces(), op));
    }
    if (puts.size) await this.writeItems([...puts.values()], new Date());
    return results as OperationResults<Op>;
  }

  private async searchItems(op: SearchOperation): Promise<SearchItem[]> {
    const offset = op.offset ?? 0;
    const limit = op.limit ?? 10;
    const out: SearchItem[] = [];
    let skipped = 0;
    for (const item of await this.readItemsUnder(op.namespacePrefix)) {
      if (!hasPrefix(item.namespace, op.namespacePrefix) || !matchesFilter(item.value, op.filter)) continue;
      if (skipped++ < offset) continue;
      if (out.length >= limit) break;
      out.push({ ...item, score: undefined });
    }
    return out;
  }
}

function checkOperation(op: Operation): void {
  if (isPut(op)) {
    validateNamespace(op.namespace);
    if (op.value !== null && (typeof op.value !== "object" || Array.isArray(op.value)))
      throw new UnsupportedStoreOptionError(
        `value ${JSON.stringify(op.value)}`,
        "A stored value is a plain object, e.g. { text: '...' }.",
      );
    if (Array.isArray(op.index))
      throw new UnsupportedStoreOptionError(
        "index (fields to embed)",
        "Semantic search needs an embeddings index, which Interlude's stores do not have; pass no index or false.",
      );
  } else if (isGet(op)) validateNamespace(op.namespace);
  else if (isSearch(op)) {
    validateNamespace(op.namespacePrefix, { allowEmpty: true });
    if (op.query !== undefined)
      throw new UnsupportedStoreOptionError(
        "query (semantic search)",
        "Interlude's stores have no embeddings index: search by namespace prefix and `filter` instead.",
      );
  }
}
