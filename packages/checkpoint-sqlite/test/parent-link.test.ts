import { describe, expect, it } from "vitest";
import { keptParent, parentOf } from "../src/parent-link.js";

describe("a checkpoint row's parent link, kept relative to the row's id", () => {
  const id = "01a22f18-3f8e-7000-0000-1f4e95ec883f";
  it.each([
    {
      case: "the previous step's id, same process and millisecond",
      parent: "01a22f18-3f8e-7000-0000-0f4e95ec883f",
      bytes: 3,
    },
    { case: "an id from an earlier millisecond", parent: "01a22f18-3f8d-7000-0000-0f4e95ec883f", bytes: 15 },
    { case: "an id from another process", parent: "01a22f18-3f8d-7000-0000-0a1b2c3d4e5f", bytes: 25 },
    { case: "an id that shares a suffix only", parent: "ffa22f18-3f8e-7000-0000-1f4e95ec883f", bytes: 4 },
  ])("$case reads back exactly, in $bytes bytes", ({ parent, bytes }) => {
    const kept = keptParent(id, parent);
    expect(kept).toBeInstanceOf(Buffer);
    expect((kept as Buffer).length).toBe(bytes);
    expect(parentOf(id, kept)).toBe(parent);
  });

  it.each([
    ["an unrelated id", "checkpoint-1"],
    ["an id that differs throughout", "11111111-1111-1111-1111-111111111111"],
    ["the same text as the id", id],
  ])("keeps %s as text", (_case, parent) => {
    const kept = keptParent(id, parent);
    if (parent === id) expect(parentOf(id, kept)).toBe(parent);
    else {
      expect(kept).toBe(parent);
      expect(parentOf(id, kept)).toBe(parent);
    }
  });

  it("keeps no parent as NULL, and reads ids that rows of earlier versions hold as text", () => {
    expect(keptParent(id, undefined)).toBeNull();
    expect(parentOf(id, null)).toBeNull();
    expect(parentOf(id, "01a22f18-3f8e-7000-0000-0f4e95ec883f")).toBe("01a22f18-3f8e-7000-0000-0f4e95ec883f");
  });

  it("handles ids of other lengths and non-ASCII text", () => {
    for (const [child, parent] of [
      ["thread-é-0002", "thread-é-0001"],
      ["a-long-prefix-then-1", "a-long-prefix-then-12345"],
      ["a-long-prefix-then-12345", "a-long-prefix-then-1"],
      ["x".repeat(300), `${"x".repeat(299)}y`],
    ]) {
      expect(parentOf(child!, keptParent(child!, parent))).toBe(parent);
    }
  });
});
