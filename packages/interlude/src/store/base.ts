/**
 * `BaseStore`: long-term memory shared across threads, as LangGraph defines it. Everything is
 * one `batch()` of operations; `get`, `search`, `put`, `delete` and `listNamespaces` are each a
 * batch of one. Passed with `compile({ store })`, nodes reach it as `config.store` or `getStore()`.
 */
import { InvalidNamespaceError } from "../errors/store.js";
import { validateNamespace } from "./match.js";
import type { Item, MatchCondition, Operation, OperationResults, SearchItem } from "./types.js";

export interface SearchOptions {
  filter?: Record<string, any>;
  limit?: number;
  offset?: number;
  query?: string;
}

export interface ListNamespacesOptions {
  prefix?: string[];
  suffix?: string[];
  maxDepth?: number;
  limit?: number;
  offset?: number;
}

export abstract class BaseStore {
  abstract batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>>;

  /**
   * `"[ClassName]"`: a node's config holds the store (`config.store`), and a config written out
   * (logged, traced) must not walk its connections, whose options carry the connection string and
   * its password, nor an in-memory store's every item. LangGraph.js's config holds a wrapper
   * written as `"[LangGraphStore]"` for the same reason.
   */
  toJSON(): string | Record<string, unknown> {
    return `[${this.constructor.name}]`;
  }

  async get(namespace: string[], key: string): Promise<Item | null> {
    // No item is stored at the empty namespace: asking there is a mistake, as in LangGraph.js.
    validateNamespace(namespace);
    const [item] = await this.batch([{ namespace, key }]);
    return item;
  }

  /** Items under `namespacePrefix` whose value matches `filter`; 10 by default, as in LangGraph. */
  async search(namespacePrefix: string[], options: SearchOptions = {}): Promise<SearchItem[]> {
    validateNamespace(namespacePrefix, { allowEmpty: true });
    const { filter, limit = 10, offset = 0, query } = options;
    const [items] = await this.batch([{ namespacePrefix, filter, limit, offset, query }]);
    return items;
  }

  async put(namespace: string[], key: string, value: Record<string, any>, index?: false | string[]): Promise<void> {
    validateNamespace(namespace);
    if (namespace[0] === "langgraph")
      throw new InvalidNamespaceError('The root label "langgraph" is reserved, as in LangGraph.');
    await this.batch([{ namespace, key, value, index }]);
  }

  async delete(namespace: string[], key: string): Promise<void> {
    validateNamespace(namespace, { allowEmpty: true });
    await this.batch([{ namespace, key, value: null }]);
  }

  /** Namespaces holding items, sorted; cut to `maxDepth` labels and deduplicated. 100 by default. */
  async listNamespaces(options: ListNamespacesOptions = {}): Promise<string[][]> {
    const { prefix, suffix, maxDepth, limit = 100, offset = 0 } = options;
    const matchConditions: MatchCondition[] = [];
    if (prefix) {
      validateNamespace(prefix, { allowEmpty: true });
      matchConditions.push({ matchType: "prefix", path: prefix });
    }
    if (suffix) {
      validateNamespace(suffix, { allowEmpty: true });
      matchConditions.push({ matchType: "suffix", path: suffix });
    }
    const [namespaces] = await this.batch([
      { matchConditions: matchConditions.length ? matchConditions : undefined, maxDepth, limit, offset },
    ]);
    return namespaces;
  }

  /** Opens what the store needs (tables, connections); LangGraph calls it before use. */
  start(): void | Promise<void> {}
  stop(): void | Promise<void> {}
}
