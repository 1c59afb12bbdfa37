import { BaseCache, type CacheFullKey, type CacheNamespace } from "./base.js";

interface Entry {
  data: string | Uint8Array;
  /** Epoch ms after which the entry is gone; undefined: kept until cleared. */
  expires?: number;
}

/** A cache in this process's memory. Values are stored serialized, so a caller can never change a cached result. */
export class InMemoryCache<V = unknown> extends BaseCache<V> {
  private readonly namespaces = new Map<string, Map<string, Entry>>();

  async get(keys: CacheFullKey[]): Promise<Array<{ key: CacheFullKey; value: V }>> {
    const now = Date.now();
    const found: Array<{ key: CacheFullKey; value: V }> = [];
    for (const key of keys) {
      const entries = this.namespaces.get(nameOf(key[0]));
      const entry = entries?.get(key[1]);
      if (!entry) continue;
      if (entry.expires !== undefined && now >= entry.expires) {
        entries!.delete(key[1]);
        continue;
      }
      found.push({ key, value: this.serde.loads(entry.data) as V });
    }
    return found;
  }

  async set(pairs: Array<{ key: CacheFullKey; value: V; ttl?: number }>): Promise<void> {
    const now = Date.now();
    for (const { key, value, ttl } of pairs) {
      const name = nameOf(key[0]);
      let entries = this.namespaces.get(name);
      if (!entries) this.namespaces.set(name, (entries = new Map()));
      entries.set(key[1], { data: this.serde.dumps(value), expires: ttl === undefined ? undefined : now + ttl * 1000 });
    }
  }

  async clear(namespaces: CacheNamespace[]): Promise<void> {
    if (namespaces.length === 0) this.namespaces.clear();
    for (const namespace of namespaces) this.namespaces.delete(nameOf(namespace));
  }
}

function nameOf(namespace: CacheNamespace): string {
  return namespace.join(",");
}
