/**
 * LangGraph's store (long-term memory) in the server, on SQLite and on PostgreSQL: graphs are
 * compiled with it, and the SDK's `client.store` reads and writes the same items.
 */
import { Annotation, START, StateGraph } from "@interlude/core";
import type { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, type TestServer, testServer } from "./helpers.js";
import { storages } from "./processes.js";

type Memories = {
  put(ns: string[], key: string, value: object): Promise<void>;
  get(ns: string[], key: string): Promise<{ value: unknown } | null>;
};

/** Remembers `fact` for `user`, and says what it knew of them before. */
const remember = new StateGraph(Annotation.Root({ user: Annotation(), fact: Annotation(), knew: Annotation() }))
  .addNode("remember", async (s: { user: string; fact: string }, config: { store?: Memories }) => {
    const before = await config.store!.get(["memories", s.user], "fact");
    await config.store!.put(["memories", s.user], "fact", { text: s.fact });
    return { knew: before?.value ?? null };
  })
  .addEdge(START, "remember");

const backends = storages("interlude_store");

describe.each(backends)("the store on %s", (_name, storage) => {
  let server: TestServer;
  let client: Client;
  beforeAll(async () => {
    server = await testServer({ ...(await storage()), graphs: { remember } });
    client = server.client();
  }, 60_000);
  afterAll(() => server?.dispose());

  it("what a graph puts, the API reads; what the API puts, the graph reads", async () => {
    await client.runs.wait(null, "remember", { input: { user: "ada", fact: "likes tea" } });
    const item = await client.store.getItem(["memories", "ada"], "fact");
    expect(item).toMatchObject({ namespace: ["memories", "ada"], key: "fact", value: { text: "likes tea" } });
    expect(typeof item!.createdAt).toBe("string");
    await client.store.putItem(["memories", "bob"], "fact", { text: "likes coffee" });
    const thread = await client.threads.create();
    const done = (await client.runs.wait(thread.thread_id, "remember", {
      input: { user: "bob", fact: "likes tea too" },
    })) as any;
    expect(done.knew).toEqual({ text: "likes coffee" });
    expect((await client.store.getItem(["memories", "bob"], "fact"))!.value).toEqual({ text: "likes tea too" });
  });

  it("searches by prefix and filter, lists namespaces, deletes; a missing item is null", async () => {
    await client.store.putItem(["notes", "x"], "a", { kind: "todo", n: 1 });
    await client.store.putItem(["notes", "x"], "b", { kind: "done", n: 2 });
    await client.store.putItem(["notes", "y"], "c", { kind: "todo", n: 3 });
    const todos = await client.store.searchItems(["notes"], { filter: { kind: "todo" } });
    expect(todos.items.map((i) => i.key).sort()).toEqual(["a", "c"]);
    const listed = await client.store.listNamespaces({ prefix: ["notes"] });
    expect(listed.namespaces).toEqual([
      ["notes", "x"],
      ["notes", "y"],
    ]);
    await client.store.deleteItem(["notes", "x"], "a");
    expect(await client.store.getItem(["notes", "x"], "a")).toBeNull();
  });

  it("a semantic index, a TTL or a semantic query is refused (422), not ignored", async () => {
    const put = (extra: object) =>
      json(`${server.url}/store/items`, {
        method: "PUT",
        body: JSON.stringify({ namespace: ["n"], key: "k", value: { v: 1 }, ...extra }),
      });
    expect(await put({ index: ["text"] })).toMatchObject({ status: 422, body: { field: "index" } });
    expect(await put({ ttl: 5 })).toMatchObject({ status: 422, body: { field: "ttl" } });
    expect((await put({ index: false })).status).toBe(204);
    const search = await json(`${server.url}/store/items/search`, {
      method: "POST",
      body: JSON.stringify({ namespace_prefix: ["n"], query: "tea" }),
    });
    expect(search).toMatchObject({ status: 422, body: { field: "query" } });
    const dotted = await json(`${server.url}/store/items`, {
      method: "PUT",
      body: JSON.stringify({ namespace: ["a.b"], key: "k", value: {} }),
    });
    expect(dotted).toMatchObject({ status: 422, body: { field: "namespace.0" } });
    // Labels the store itself refuses: its error, with 422.
    const colon = await json(`${server.url}/store/items`, {
      method: "PUT",
      body: JSON.stringify({ namespace: ["a:b"], key: "k", value: {} }),
    });
    expect(colon).toMatchObject({ status: 422, body: { code: "INVALID_NAMESPACE" } });
    const empty = await json(`${server.url}/store/items?namespace=a..b&key=k`);
    expect(empty).toMatchObject({ status: 422, body: { code: "INVALID_NAMESPACE" } });
  });
});
