/**
 * The behaviour every `BaseStore` must have, LangGraph's store contract: items by namespace and
 * key with their timestamps, search by namespace prefix and filter with paging, deletes,
 * namespace listings, batches. Run by InMemoryStore, SqliteStore and PostgresStore.
 */
import { randomUUID } from "node:crypto";
import type { BaseStore } from "@interlude/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

export interface StoreHarness {
  store: BaseStore;
  /** Another store over the same storage (a new connection), when the storage outlives the object. */
  reopen?: () => Promise<BaseStore>;
  close(): Promise<void>;
}

export type MakeStore = () => Promise<StoreHarness>;

const keysOf = (items: Array<{ key: string }>) => items.map((i) => i.key).sort();

/** `durable`: the storage outlives the store object (`reopen` is given); the reopen test is registered only then. */
export function describeStoreConformance(name: string, makeStore: MakeStore, options: { durable: boolean }): void {
  describe(`${name} store conformance`, () => {
    let harness: StoreHarness;
    let store: BaseStore;
    // Every test writes under its own root label, so stores shared across tests do not mix.
    let root: string;
    beforeEach(async () => {
      harness = await makeStore();
      store = harness.store;
      root = `t${randomUUID().replaceAll("-", "")}`;
    });
    afterEach(() => harness.close());

    it("keeps an item under its namespace and key, with the LangGraph item shape", async () => {
      await store.put([root, "prefs"], "theme", { color: "dark", size: 3 });
      const item = await store.get([root, "prefs"], "theme");
      expect(item).toMatchObject({ namespace: [root, "prefs"], key: "theme", value: { color: "dark", size: 3 } });
      expect(item!.createdAt).toBeInstanceOf(Date);
      expect(item!.updatedAt).toBeInstanceOf(Date);
      expect(await store.get([root, "prefs"], "missing")).toBeNull();
      expect(await store.get([root, "other"], "theme")).toBeNull();
    });

    it("overwrites a value in place: createdAt stays, updatedAt moves on", async () => {
      await store.put([root], "k", { v: 1 });
      const first = (await store.get([root], "k"))!;
      await store.put([root], "k", { v: 2 });
      const second = (await store.get([root], "k"))!;
      expect(second.value).toEqual({ v: 2 });
      expect(second.createdAt.getTime()).toBe(first.createdAt.getTime());
      expect(second.updatedAt.getTime()).toBeGreaterThanOrEqual(first.updatedAt.getTime());
    });

    it("deletes an item, and deleting a missing one is harmless", async () => {
      await store.put([root], "k", { v: 1 });
      await store.delete([root], "k");
      expect(await store.get([root], "k")).toBeNull();
      await store.delete([root], "never-there");
      expect(await store.search([root])).toEqual([]);
    });

    it("searches by namespace prefix, by whole labels only", async () => {
      await store.put([root, "users", "alice"], "a", { n: 1 });
      await store.put([root, "users", "alice", "notes"], "b", { n: 2 });
      await store.put([root, "users", "alicia"], "c", { n: 3 });
      await store.put([root, "teams"], "d", { n: 4 });
      expect(keysOf(await store.search([root, "users", "alice"]))).toEqual(["a", "b"]);
      expect(keysOf(await store.search([root, "users"]))).toEqual(["a", "b", "c"]);
      expect(keysOf(await store.search([root]))).toEqual(["a", "b", "c", "d"]);
      const [found] = await store.search([root, "teams"]);
      expect(found).toMatchObject({ namespace: [root, "teams"], key: "d", value: { n: 4 } });
    });

    it("filters on value fields: equality, comparisons, $in / $nin, nested objects", async () => {
      await store.put([root], "a", { kind: "note", rank: 1, tags: { x: 1 } });
      await store.put([root], "b", { kind: "note", rank: 5 });
      await store.put([root], "c", { kind: "task", rank: 9 });
      expect(keysOf(await store.search([root], { filter: { kind: "note" } }))).toEqual(["a", "b"]);
      expect(keysOf(await store.search([root], { filter: { rank: { $gt: 1 } } }))).toEqual(["b", "c"]);
      expect(keysOf(await store.search([root], { filter: { rank: { $gte: 1, $lt: 9 } } }))).toEqual(["a", "b"]);
      expect(keysOf(await store.search([root], { filter: { kind: { $ne: "note" } } }))).toEqual(["c"]);
      expect(keysOf(await store.search([root], { filter: { rank: { $in: [1, 9] } } }))).toEqual(["a", "c"]);
      expect(keysOf(await store.search([root], { filter: { rank: { $nin: [1, 9] } } }))).toEqual(["b"]);
      expect(keysOf(await store.search([root], { filter: { tags: { x: 1 } } }))).toEqual(["a"]);
      expect(await store.search([root], { filter: { kind: "none" } })).toEqual([]);
    });

    it("pages search results with limit and offset (10 by default) without repeating an item", async () => {
      for (let i = 0; i < 12; i++) await store.put([root], `k${String(i).padStart(2, "0")}`, { i });
      expect(await store.search([root])).toHaveLength(10);
      const pages = [
        await store.search([root], { limit: 5, offset: 0 }),
        await store.search([root], { limit: 5, offset: 5 }),
        await store.search([root], { limit: 5, offset: 10 }),
      ];
      expect(pages.map((p) => p.length)).toEqual([5, 5, 2]);
      expect(new Set(pages.flat().map((i) => i.key)).size).toBe(12);
    });

    it("lists namespaces by prefix, suffix, wildcard and depth, sorted and paged", async () => {
      await store.put([root, "users", "alice", "prefs"], "k", { v: 1 });
      await store.put([root, "users", "bob", "prefs"], "k", { v: 1 });
      await store.put([root, "users", "bob", "notes"], "k", { v: 1 });
      await store.put([root, "teams", "red"], "k", { v: 1 });
      expect(await store.listNamespaces({ prefix: [root, "users"] })).toEqual([
        [root, "users", "alice", "prefs"],
        [root, "users", "bob", "notes"],
        [root, "users", "bob", "prefs"],
      ]);
      expect(await store.listNamespaces({ prefix: [root], maxDepth: 2 })).toEqual([
        [root, "teams"],
        [root, "users"],
      ]);
      expect(await store.listNamespaces({ prefix: [root, "*", "bob"] })).toHaveLength(2);
      expect(await store.listNamespaces({ prefix: [root], suffix: ["prefs"] })).toEqual([
        [root, "users", "alice", "prefs"],
        [root, "users", "bob", "prefs"],
      ]);
      expect(await store.listNamespaces({ prefix: [root], limit: 1, offset: 1 })).toEqual([
        [root, "users", "alice", "prefs"],
      ]);
      await store.delete([root, "teams", "red"], "k");
      expect(await store.listNamespaces({ prefix: [root, "teams"] })).toEqual([]);
    });

    it("answers a batch in order; its reads see the store before its writes", async () => {
      await store.put([root], "a", { v: 1 });
      const results = await store.batch([
        { namespace: [root], key: "a" },
        { namespace: [root], key: "b", value: { v: 2 } },
        { namespace: [root], key: "b" },
        { namespacePrefix: [root], limit: 10, offset: 0 },
        { namespace: [root], key: "a", value: null },
        { matchConditions: [{ matchType: "prefix", path: [root] }], limit: 10, offset: 0 },
      ]);
      expect(results[0]).toMatchObject({ key: "a", value: { v: 1 } });
      expect(results[1]).toBeUndefined();
      expect(results[2]).toBeNull();
      expect(keysOf(results[3] as Array<{ key: string }>)).toEqual(["a"]);
      expect(results[5]).toEqual([[root]]);
      expect(await store.get([root], "a")).toBeNull();
      expect(await store.get([root], "b")).toMatchObject({ value: { v: 2 } });
    });

    it("writes nothing from a batch that has an invalid operation", async () => {
      await expect(
        store.batch([
          { namespace: [root], key: "ok", value: { v: 1 } },
          { namespace: [root, "bad.label"], key: "k", value: { v: 2 } },
        ]),
      ).rejects.toMatchObject({ code: "INVALID_NAMESPACE" });
      expect(await store.get([root], "ok")).toBeNull();
    });

    it("gives copies: changing a returned value does not change the stored one", async () => {
      await store.put([root], "k", { list: [1] });
      const item = (await store.get([root], "k"))!;
      (item.value.list as number[]).push(2);
      expect((await store.get([root], "k"))!.value).toEqual({ list: [1] });
    });

    it("refuses bad namespaces and semantic search with typed errors", async () => {
      await expect(store.put([], "k", { v: 1 })).rejects.toMatchObject({ code: "INVALID_NAMESPACE" });
      await expect(store.put([root, "a.b"], "k", { v: 1 })).rejects.toMatchObject({ code: "INVALID_NAMESPACE" });
      await expect(store.put([root, ""], "k", { v: 1 })).rejects.toMatchObject({ code: "INVALID_NAMESPACE" });
      await expect(store.put(["langgraph"], "k", { v: 1 })).rejects.toMatchObject({ code: "INVALID_NAMESPACE" });
      await expect(store.search([root], { query: "cats" })).rejects.toMatchObject({
        code: "UNSUPPORTED_STORE_OPTION",
      });
      await expect(store.put([root], "k", { v: 1 }, ["v"])).rejects.toMatchObject({
        code: "UNSUPPORTED_STORE_OPTION",
      });
    });

    if (options.durable)
      it("keeps values through a reopen of the same storage", async () => {
        await store.put([root, "mem"], "k", { text: "remember me", nested: { n: [1, 2] } });
        const again = await harness.reopen!();
        expect(await again.get([root, "mem"], "k")).toMatchObject({
          value: { text: "remember me", nested: { n: [1, 2] } },
        });
        expect(keysOf(await again.search([root]))).toEqual(["k"]);
      });
  });
}
