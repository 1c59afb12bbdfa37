/** The channel classes on their own: how a step's writes change them, and how they are saved and restored. */

import { BaseChannel, EmptyChannelError, EphemeralValue, InvalidUpdateError, LastValue, Topic } from "@interlude/core";
import { describe, expect, it } from "vitest";

describe("Topic", () => {
  it.each([
    { name: "replaces last step's values", options: {}, steps: [[1, 2], [3], []], seen: [[1, 2], [3], []] },
    { name: "adds a written list's items", options: {}, steps: [[[1, 2], 3]], seen: [[1, 2, 3]] },
    {
      name: "accumulates across steps",
      options: { accumulate: true },
      steps: [[1], [], [2, 3]],
      seen: [[1], [1], [1, 2, 3]],
    },
    {
      name: "keeps each value once",
      options: { unique: true, accumulate: true },
      steps: [
        [1, 1],
        [1, 2],
      ],
      seen: [[1], [1, 2]],
    },
    {
      name: "refuses a value seen in an earlier step",
      options: { unique: true },
      steps: [[1], [1], [2]],
      seen: [[1], [], [2]],
    },
  ])("$name", ({ options, steps, seen }) => {
    const topic = new Topic<number>(options);
    const after = steps.map((writes) => {
      topic.update(writes);
      return [...topic.get()];
    });
    expect(after).toEqual(seen);
  });

  it("does not change a list it handed out, nor the checkpoint it was restored from", () => {
    const saved = [1];
    const topic = new Topic<number>({ accumulate: true }).fromCheckpoint(saved);
    const handed = topic.get();
    topic.update([2]);
    expect(handed).toEqual([1]);
    expect(saved).toEqual([1]);
    expect(topic.get()).toEqual([1, 2]);
  });

  it("a unique topic restored from its checkpoint still refuses what it saw", () => {
    const topic = new Topic<string>({ unique: true, accumulate: false });
    topic.update(["a"]);
    topic.update([]);
    const restored = topic.fromCheckpoint(topic.checkpoint());
    expect(restored.update(["a"])).toBe(false);
    expect(restored.update(["b"])).toBe(true);
    expect(restored.get()).toEqual(["b"]);
  });
});

describe("EphemeralValue", () => {
  it("refuses two writes in a step, unless made without its guard (the last then wins)", () => {
    const guarded = new EphemeralValue<number>("once");
    expect(() => guarded.update([1, 2])).toThrow(InvalidUpdateError);
    const unguarded = new EphemeralValue<number>(false);
    unguarded.update([1, 2]);
    expect(unguarded.get()).toBe(2);
    expect(unguarded.fromCheckpoint(3).guard).toBe(false);
  });

  it("is empty when restored from nothing, and cleared by a step without writes", () => {
    expect(new EphemeralValue().fromCheckpoint(undefined).isAvailable()).toBe(false);
    const value = new EphemeralValue<string>("v");
    value.update(["x"]);
    expect(value.update([])).toBe(true);
    expect(value.isAvailable()).toBe(false);
  });
});

describe("BaseChannel", () => {
  class Max extends BaseChannel<number, number, number> {
    value?: number;
    fromCheckpoint(saved?: number): this {
      const channel = new Max() as this;
      channel.value = saved;
      return channel;
    }
    update(values: number[]): boolean {
      if (values.length === 0) return false;
      this.value = Math.max(this.value ?? Number.NEGATIVE_INFINITY, ...values);
      return true;
    }
    get(): number {
      if (this.value === undefined) throw new EmptyChannelError("nothing written yet");
      return this.value;
    }
    checkpoint(): number | undefined {
      return this.value;
    }
  }

  it("is available once get() stops throwing EmptyChannelError; another error is not swallowed", () => {
    const max = new Max();
    expect(max.isAvailable()).toBe(false);
    max.update([3, 9, 4]);
    expect(max.isAvailable()).toBe(true);
    expect(max.fromCheckpoint(max.checkpoint()).get()).toBe(9);
    const broken = new (class extends Max {
      override get(): number {
        throw new TypeError("broken");
      }
    })();
    expect(() => broken.isAvailable()).toThrow(TypeError);
  });

  it("a LastValue made without a name takes none until a graph gives it its key", () => {
    expect(new LastValue().key).toBe("");
    expect(new LastValue("plan").fromCheckpoint(undefined).key).toBe("plan");
  });
});
