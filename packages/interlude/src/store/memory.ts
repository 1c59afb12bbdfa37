/** `InMemoryStore`: the store in a Map, for tests and single-process use; gone when the process exits. */
import { StoreKit } from "./kit.js";
import { copyItem, NS_JOIN } from "./match.js";
import type { Item, PutOperation } from "./types.js";

export class InMemoryStore extends StoreKit {
  /** Namespace (joined) -> key -> item; Map order keeps items oldest first. */
  private readonly data = new Map<string, Map<string, Item>>();

  /** LangGraph's semantic-search config: none, as `index` is refused. */
  get indexConfig(): undefined {
    return undefined;
  }

  constructor(options?: { index?: unknown }) {
    super();
    this.refuseOptions(options, [], {
      index:
        "Semantic search needs embeddings; create the store without `index` and search by namespace prefix and `filter`.",
    });
  }

  protected async readItem(namespace: string[], key: string): Promise<Item | null> {
    const item = this.data.get(namespace.join(NS_JOIN))?.get(key);
    return item ? copyItem(item) : null;
  }

  protected async readItemsUnder(prefix: string[]): Promise<Item[]> {
    const joined = prefix.join(NS_JOIN);
    const out: Item[] = [];
    for (const [namespace, items] of this.data) {
      if (joined && namespace !== joined && !namespace.startsWith(`${joined}${NS_JOIN}`)) continue;
      for (const item of items.values()) out.push(copyItem(item));
    }
    return out;
  }

  protected async readNamespaces(): Promise<string[][]> {
    return [...this.data.values()].filter((items) => items.size > 0).map((items) => [...items.values()][0]!.namespace);
  }

  protected async writeItems(puts: PutOperation[], now: Date): Promise<void> {
    for (const { namespace, key, value } of puts) {
      const joined = namespace.join(NS_JOIN);
      let items = this.data.get(joined);
      if (value === null) {
        items?.delete(key);
        if (items?.size === 0) this.data.delete(joined);
        continue;
      }
      if (!items) this.data.set(joined, (items = new Map()));
      const previous = items.get(key);
      const stored = structuredClone(value);
      if (previous) {
        previous.value = stored;
        previous.updatedAt = now;
      } else items.set(key, { value: stored, key, namespace: [...namespace], createdAt: now, updatedAt: now });
    }
  }
}
