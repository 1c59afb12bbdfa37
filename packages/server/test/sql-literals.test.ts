/** Parameters written into batched PostgreSQL statements as literals (store/sql-literals.ts). */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { inlined, literal, UnsupportedLiteralError } from "../dist/store/sql-literals.js";

describe("SQL literals", () => {
  it.each([
    [null, "NULL"],
    [undefined, "NULL"],
    ["plain", "'plain'"],
    ["it's", "'it''s'"],
    ["back\\slash", "E'back\\\\slash'"],
    ["'; DROP TABLE x; --", "'''; DROP TABLE x; --'"],
    [42, "42"],
    [-1.5, "-1.5"],
    [true, "TRUE"],
    [false, "FALSE"],
  ])("%j is written as %s", (value, expected) => {
    expect(literal(value)).toBe(expected);
  });

  it.each([[Number.NaN], [Number.POSITIVE_INFINITY], [{ a: 1 }], [["a"]], [10n]])("%s is refused", (value) => {
    expect(() => literal(value)).toThrow(UnsupportedLiteralError);
  });

  it.each([
    [""],
    ["'"],
    ["\\"],
    ["a'b\\c''d\\\\e"],
    [JSON.stringify({ text: 'it\'s a "quote" and a \\ backslash\n', list: ["x'y", "\u0000"] })],
  ])("%j is quoted as node-postgres's escapeLiteral quotes it", (text) => {
    expect(literal(text)).toBe(pg.escapeLiteral(text).trim());
  });

  it("replaces each ? with the next parameter", () => {
    expect(inlined("UPDATE t SET a = ?, b = ? WHERE c = ?", ["x", 1, null])).toBe(
      "UPDATE t SET a = 'x', b = 1 WHERE c = NULL",
    );
  });
});
