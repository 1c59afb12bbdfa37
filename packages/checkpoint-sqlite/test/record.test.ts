import { describe, expect, it } from "vitest";
import { isCanonical } from "../src/record.js";

/** The definition the fast check stands for. */
const reference = (ts: string) => {
  const ms = Date.parse(ts);
  return !Number.isNaN(ms) && new Date(ms).toISOString() === ts;
};

describe("a record's ts is dropped only when created_at gives it back exactly", () => {
  it.each([
    ["2026-12-01T06:02:29.123Z", true],
    ["0000-01-01T00:00:00.000Z", true],
    ["9999-12-31T23:59:59.999Z", true],
    ["2024-02-29T12:00:00.000Z", true],
    // Date.parse moves these to another day or hour: the string would not come back.
    ["2023-02-29T12:00:00.000Z", false],
    ["2026-04-31T00:00:00.000Z", false],
    ["2026-01-01T24:00:00.000Z", false],
    // Rejected by Date.parse, or not the shape toISOString writes.
    ["2026-13-01T00:00:00.000Z", false],
    ["2026-01-01T23:60:00.000Z", false],
    ["2026-01-01T00:00:00Z", false],
    ["2026-01-01T00:00:00.000+00:00", false],
    ["not a date", false],
  ])("%s -> %s", (ts, expected) => {
    expect(isCanonical(ts)).toBe(expected);
    expect(reference(ts)).toBe(expected);
  });

  it("keeps the ts of a year past 9999 (toISOString's extended form): a few bytes, never a wrong instant", () => {
    const ts = new Date(Date.UTC(12026, 0, 1)).toISOString();
    expect(ts).toBe("+012026-01-01T00:00:00.000Z");
    expect(isCanonical(ts)).toBe(false);
  });

  it("agrees with toISOString on instants spread over the years 0 to 9999", () => {
    const first = Date.UTC(0, 0, 1);
    const span = Date.UTC(9999, 11, 31) - first;
    for (let i = 0; i < 2000; i++) {
      const ts = new Date(first + Math.floor((span * i) / 2000) + i * 7919).toISOString();
      expect(isCanonical(ts)).toBe(true);
      // The same instant one day-of-month further on, out of range for short months.
      const shifted = `${ts.slice(0, 8)}${String(Math.min(31, Number(ts.slice(8, 10)) + 3)).padStart(2, "0")}${ts.slice(10)}`;
      expect(isCanonical(shifted)).toBe(reference(shifted));
    }
  });
});
