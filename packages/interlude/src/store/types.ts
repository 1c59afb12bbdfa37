/**
 * The records a store keeps and the operations of `batch()`, shaped as LangGraph's
 * `BaseStore` defines them, so code written against LangGraph's store runs unchanged.
 */

/** A stored value: a JSON object under a namespace and a key. */
export interface Item {
  value: Record<string, any>;
  key: string;
  namespace: string[];
  createdAt: Date;
  updatedAt: Date;
}

/** An item found by `search()`; `score` is set only by semantic search, which Interlude lacks. */
export interface SearchItem extends Item {
  score?: number;
}

export interface GetOperation {
  namespace: string[];
  key: string;
}

export interface SearchOperation {
  namespacePrefix: string[];
  filter?: Record<string, any>;
  limit?: number;
  offset?: number;
  query?: string;
}

/** A write; `value: null` deletes the item. */
export interface PutOperation {
  namespace: string[];
  key: string;
  value: Record<string, any> | null;
  index?: false | string[];
}

export type NameSpacePath = (string | "*")[];
export type NamespaceMatchType = "prefix" | "suffix";

export interface MatchCondition {
  matchType: NamespaceMatchType;
  path: NameSpacePath;
}

export interface ListNamespacesOperation {
  matchConditions?: MatchCondition[];
  maxDepth?: number;
  limit: number;
  offset: number;
}

export type Operation = GetOperation | SearchOperation | PutOperation | ListNamespacesOperation;

export type OperationResults<Tuple extends readonly Operation[]> = {
  [K in keyof Tuple]: Tuple[K] extends PutOperation
    ? // biome-ignore lint/suspicious/noConfusingVoidType: LangGraph's type: a put's result is void.
      void
    : Tuple[K] extends SearchOperation
      ? SearchItem[]
      : Tuple[K] extends GetOperation
        ? Item | null
        : Tuple[K] extends ListNamespacesOperation
          ? string[][]
          : never;
};

export function isPut(op: Operation): op is PutOperation {
  return "value" in op;
}
export function isGet(op: Operation): op is GetOperation {
  return "key" in op && !("value" in op);
}
export function isSearch(op: Operation): op is SearchOperation {
  return "namespacePrefix" in op;
}
