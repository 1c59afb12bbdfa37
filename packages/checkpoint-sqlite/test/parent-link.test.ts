import { describe, expect, it } from "vitest";
import { keptParent, parentOf } from "../src/parent-link.js";

describe("a checkpoint row's parent link, kept relative to the row's id", () => {
  const id = "01a22f18-3f8e-7000-0000-1f4e95ec883f";
  it.each([
    {
      case: "the previous step's id, same process and millisecond",
      parent: "01a22f18-3f8e-7000-0000-0f4e95ec883f",
      length: 4,
    },
    { case: "an id from an earlier millisecond", parent: "01a22f18-3f8d-7000-0000-0f4e95ec883f", length: 16 },
    { case: "an id from another process", parent: "01a22f18-3f8d-7000-0000-0a1b2c3d4e5f", length: 26 },
    { case: "an id that shares a suffix only", parent: "ffa22f18-3f8e-7000-0000-1f4e95ec883f", length: 5 },
    { case: "the same text as the id", parent: id, length: 3 },
  ])("$case reads back exactly, from $length characters of text", ({ parent, length }) => {
    const kept = keptParent(id, parent);
    expect(typeof kept).toBe("string");
    expect((kept as string).length).toBe(length);
    expect(parentOf(id, kept)).toBe(parent);
  });

  it.each([
    ["an unrelated id", "checkpoint-1"],
    ["an id that differs throughout", "11111111-1111-1111-1111-111111111111"],
  ])("keeps %s as it is", (_case, parent) => {
    expect(keptParent(id, parent)).toBe(parent);
    expect(parentOf(id, parent)).toBe(parent);
  });

  it("keeps an id that starts with the marker as bytes, so that it is not read as a relative link", () => {
    const odd = "\u0001\u0005\u0000odd";
    const kept = keptParent(id, odd);
    expect(kept).toBeInstanceOf(Buffer);
    expect(parentOf(id, kept)).toBe(odd);
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
      [`${"x".repeat(200)}a${"y".repeat(200)}`, `${"x".repeat(200)}b${"y".repeat(200)}`],
    ]) {
      expect(parentOf(child!, keptParent(child!, parent))).toBe(parent);
    }
  });
});
