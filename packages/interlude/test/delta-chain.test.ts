import { describe, expect, it, vi } from "vitest";
import { assembleValue, DeltaPlanner, type StoredBlob } from "../src/checkpoint/delta.js";
import { JsonSerializer } from "../src/checkpoint/serde.js";

const serde = new JsonSerializer();

/**
 * A list grown `steps` times by `growBy(step)` items, each step run by the next of `savers`
 * planners (processes) after a read of the newest version, as a run reads its thread first.
 * Returns what was stored and read: items written, full copies, the longest chain a read followed.
 */
function grow(steps: number, growBy: (step: number) => number, savers = 1) {
  const blobs = new Map<number, StoredBlob>();
  const planners = Array.from({ length: savers }, () => new DeltaPlanner());
  const lookup = (_channel: string, version: number) => blobs.get(version);
  let list: unknown[] = [];
  let version = 0;
  let items = 0;
  let written = 0;
  let fullCopies = 0;
  let longestRead = 0;
  for (let step = 0; step < steps; step++) {
    const planner = planners[step % savers]!;
    if (version > 0) {
      const read = assembleValue("messages", version, lookup, serde, planner.tracks("t"))!;
      list = read.value as unknown[];
      planner.learn("t", "", "messages", version, list, read.chain);
      longestRead = Math.max(longestRead, (read.chain?.length ?? 1) - 1);
    }
    list = [...list];
    for (let i = growBy(step); i > 0; i--) list.push({ n: items++ });
    version++;
    const plan = planner.plan("t", "", "messages", version, { messages: list });
    const payload = plan.payload as unknown[];
    blobs.set(version, { base: plan.base, data: serde.dumps(payload, "messages") as string });
    written += payload.length;
    if (plan.base === null) fullCopies++;
    planner.commit("t", plan);
  }
  const last = assembleValue("messages", version, lookup, serde)!.value as Array<{ n: number }>;
  expect(last.map((item) => item.n)).toEqual(Array.from({ length: items }, (_, i) => i));
  return { items, written, fullCopies, longestRead };
}

describe("the chain of deltas a list is stored in", () => {
  it("writes each item a few times and keeps reads short, for one process or several taking turns", () => {
    for (const savers of [1, 2, 3]) {
      const run = grow(3_000, () => 1, savers);
      // One full copy per process (its first write), then appends only.
      expect(run.fullCopies).toBe(savers);
      // Levels of 32 and 1,024 items: each item about three times.
      expect(run.written).toBeLessThan(run.items * 3);
      // At most 31 links per level, the full copy included.
      expect(run.longestRead).toBeLessThanOrEqual(3 * 31);
    }
  });

  it("keeps steps that append several items at once as cheap", () => {
    const run = grow(1_000, (step) => 1 + (step % 5), 2);
    expect(run.fullCopies).toBe(2);
    expect(run.written).toBeLessThan(run.items * 3);
    expect(run.longestRead).toBeLessThanOrEqual(3 * 31);
  });

  it("folds links that append nothing, so a list written again unchanged does not lengthen every read", () => {
    // A node returning `messages: []` at most steps: the version moves, the list does not.
    const run = grow(2_000, (step) => (step % 10 === 0 ? 1 : 0), 2);
    expect(run.fullCopies).toBe(2);
    expect(run.longestRead).toBeLessThanOrEqual(2 * 31);
  });

  it("writes a full copy, not a delta, after a read of an older version than the one written last", () => {
    const planner = new DeltaPlanner();
    const first = [{ n: 0 }];
    planner.commit("t", planner.plan("t", "", "messages", 1, { messages: first }));
    const second = [...first, { n: 1 }];
    planner.commit("t", planner.plan("t", "", "messages", 2, { messages: second }));
    // A read of version 1 (history) teaches nothing: the lineage stays at version 2.
    const old = [{ n: 0 }];
    planner.learn("t", "", "messages", 1, old, [{ version: 1, length: 1 }]);
    expect(planner.plan("t", "", "messages", 3, { messages: [...old, { n: 2 }] }).base).toBeNull();
    expect(planner.plan("t", "", "messages", 3, { messages: [...second, { n: 2 }] }).base).toBe(2);
  });

  it("builds a read on a value already held at a base version: the same value and chain, only the new items parsed", () => {
    const blobs = new Map<number, StoredBlob>();
    const lookup = (_channel: string, version: number) => blobs.get(version);
    const planner = new DeltaPlanner();
    let list: unknown[] = [];
    for (let version = 1; version <= 40; version++) {
      list = [...list, { n: version }];
      const plan = planner.plan("t", "", "messages", version, { messages: list });
      blobs.set(version, { base: plan.base, data: serde.dumps(plan.payload, "messages") as string });
      planner.commit("t", plan);
    }
    // Another process appends to version 40.
    blobs.set(41, { base: 40, data: serde.dumps([{ n: 41 }], "messages") as string });
    const fromBlobs = assembleValue("messages", 41, lookup, serde, true)!;
    const held = (chain: boolean) => (_channel: string, version: number) =>
      version === 40
        ? { value: structuredClone(list), chain: chain ? planner.chainAt("t", "", "messages", 40) : undefined }
        : undefined;
    const loads = vi.spyOn(serde, "loads");
    const built = assembleValue("messages", 41, lookup, serde, true, held(true))!;
    expect(loads).toHaveBeenCalledTimes(1);
    expect(built).toEqual(fromBlobs);
    // Without the held value's chain, a caller that wants the chain gets it from the blobs.
    loads.mockClear();
    expect(assembleValue("messages", 41, lookup, serde, true, held(false))).toEqual(fromBlobs);
    expect(loads.mock.calls.length).toBeGreaterThan(2);
    loads.mockRestore();
  });
});
