import { type Checkpoint, JsonSerializer } from "@interlude/core";
import { describe, expect, it } from "vitest";
import { isCanonical, slimKeeper } from "../src/record.js";

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

describe("a record's versions are numbered when some version is named more than once", () => {
  const keeper = slimKeeper(new JsonSerializer());
  const checkpoint = (ts: string): Checkpoint => ({
    v: 1,
    id: "1f0-0001",
    ts,
    channel_values: { a: 1 },
    channel_versions: { a: 2.5, b: 2.5, c: 1.25 },
    versions_seen: { n: { a: 1.25 }, m: {} },
  });
  const read = (kept: string | Uint8Array) => keeper.read(kept) as Record<string, unknown>;

  it("keeps each distinct version once and reads the record back as written", () => {
    const ts = new Date(1_700_000_000_000).toISOString();
    const kept = keeper.record(checkpoint(ts));
    expect(JSON.parse(kept as string)).toEqual([[2.5, 1.25], { a: 0, b: 0, c: 1 }, { n: { a: 1 }, m: {} }]);
    const { channel_values: _values, id: _id, ts: _ts, ...rest } = checkpoint(ts);
    expect(read(kept)).toEqual(rest);
    expect(read(keeper.record({ ...checkpoint("not an ISO time") }))).toEqual({ ...rest, ts: "not an ISO time" });
  });

  it("keeps versions as they are when each is named once, and reads records of schema 6", () => {
    const once = { ...checkpoint("x"), channel_versions: { a: 1.5 }, versions_seen: { n: { b: 0.5 } } };
    expect(JSON.parse(keeper.record(once) as string)).toEqual([{ a: 1.5 }, { n: { b: 0.5 } }, "x"]);
    expect(read(JSON.stringify([{ a: 2 }, { n: { a: 1 } }]))).toEqual({
      v: 1,
      channel_versions: { a: 2 },
      versions_seen: { n: { a: 1 } },
    });
  });
});
