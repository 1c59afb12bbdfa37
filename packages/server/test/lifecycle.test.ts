/** The pure parts of the hardening, by tables: run moves, JSON depth, dead claim owners. */
import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import { jsonDepth } from "../dist/http/validate.js";
import { canMove, isActive } from "../dist/runs/lifecycle.js";

describe("run lifecycle", () => {
  it.each([
    ["pending", "running", true],
    ["pending", "interrupted", true],
    ["pending", "error", true],
    ["pending", "success", false],
    ["running", "pending", true],
    ["running", "success", true],
    ["running", "timeout", true],
    ["running", "interrupted", true],
    ["success", "running", false],
    ["interrupted", "pending", false],
    ["timeout", "running", false],
    ["error", "pending", false],
  ] as const)("%s -> %s allowed: %s", (from, to, allowed) => {
    expect(canMove(from, to)).toBe(allowed);
  });

  it("only pending and running runs hold their thread", () => {
    expect(
      ["pending", "running", "success", "error", "interrupted", "timeout"].filter((s) => isActive(s as never)),
    ).toEqual(["pending", "running"]);
  });
});

describe("jsonDepth", () => {
  it.each([
    ["{}", 1],
    ["[]", 1],
    ['{"a":[1,{"b":2}]}', 3],
    ['"[[[["', 0],
    ['{"a":"\\"[[["}', 1],
    ["1", 0],
    ["[".repeat(10) + "]".repeat(10), 10],
  ])("%s is %i deep", (text, depth) => {
    expect(jsonDepth(text)).toBe(depth);
  });

  it("stops counting past the limit", () => {
    expect(jsonDepth("[".repeat(100_000), 512)).toBe(513);
  });
});

describe("dead claim owners", async () => {
  const { isDeadOwner } = await import("../../interlude/dist/thread/claim-owner.js");
  it.each([
    [`${hostname()}/${process.pid}/x`, false], // this very process
    [`${hostname()}/99999999/x`, true], // no such process here
    [`another-host/99999999/x`, false], // cannot tell: left to lapse
    ["an-old-uuid-owner", false],
    [`${hostname()}/1/x`, false], // exists (init)
  ])("%s dead: %s", (owner, dead) => {
    expect(isDeadOwner(owner)).toBe(dead);
  });
});
