/** AsyncBatchedStore: operations of one turn reach the wrapped store as one batch; nothing waits for start(). */
import { AsyncBatchedStore, InMemoryStore, type Operation } from "@interlude/core";
import { expect, it } from "vitest";

class CountingStore extends InMemoryStore {
  batches: number[] = [];
  override async batch(operations: Operation[]): Promise<any> {
    this.batches.push(operations.length);
    return super.batch(operations as never);
  }
}

it("operations made in one turn go to the wrapped store as one batch, each answered with its own result", async () => {
  const inner = new CountingStore();
  const store = new AsyncBatchedStore(inner);
  await Promise.all([
    store.put(["a"], "1", { v: 1 }),
    store.put(["a"], "2", { v: 2 }),
    store.put(["b"], "3", { v: 3 }),
  ]);
  const [one, two, found] = await Promise.all([store.get(["a"], "1"), store.get(["a"], "2"), store.search(["a"])]);
  expect(one?.value).toEqual({ v: 1 });
  expect(two?.value).toEqual({ v: 2 });
  expect(found.map((item) => item.key).sort()).toEqual(["1", "2"]);
  expect(inner.batches).toEqual([3, 3]);
});

it("a failing batch rejects every operation in it; stop() waits for what is in flight; a wrapped batched store is unwrapped", async () => {
  const inner = new CountingStore();
  const store = new AsyncBatchedStore(new AsyncBatchedStore(inner));
  expect(store.store).toBe(inner);
  store.start();
  expect(store.isRunning).toBe(true);
  const bad = Promise.allSettled([store.get(["a"], "1"), store.put(["langgraph"], "x", {})]);
  // The reserved root is refused before batching; the get goes through.
  const [got, refused] = await bad;
  expect(got.status).toBe("fulfilled");
  expect(refused.status).toBe("rejected");
  const failing = new AsyncBatchedStore({
    batch: async () => {
      throw new Error("down");
    },
  } as never);
  await expect(Promise.all([failing.get(["a"], "1"), failing.get(["a"], "2")])).rejects.toThrow("down");
  const late = store.put(["a"], "late", { v: 9 });
  await store.stop();
  expect(store.isRunning).toBe(false);
  await late;
  expect((await inner.get(["a"], "late"))?.value).toEqual({ v: 9 });
});
