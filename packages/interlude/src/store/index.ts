export { BaseStore, type ListNamespacesOptions, type SearchOptions } from "./base.js";
export { AsyncBatchedStore } from "./batched.js";
export { type ItemRow, StoreKit } from "./kit.js";
export { validateNamespace } from "./match.js";
export { InMemoryStore } from "./memory.js";
export type {
  GetOperation,
  Item,
  ListNamespacesOperation,
  MatchCondition,
  NameSpacePath,
  NamespaceMatchType,
  Operation,
  OperationResults,
  PutOperation,
  SearchItem,
  SearchOperation,
} from "./types.js";
