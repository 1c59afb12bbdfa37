/**
 * Interrupt digests stored by earlier versions must keep matching: the canonical JSON written
 * directly is the text JSON.stringify gave with the sorting replacer it replaced (kept in the
 * source as `replacerJson`, and pinned here by one literal), for every kind of payload.
 */
import { describe, expect, it } from "vitest";
import { canonicalJson, replacerJson as oracle } from "../src/algo/canonical-json.js";

class Point {
  constructor(
    readonly y: number,
    readonly x: number,
  ) {}
}

/** [undefined, <hole>, 3] */
const withHole: unknown[] = [undefined];
withHole[2] = 3;

let deep: unknown = "bottom";
for (let i = 0; i < 200; i++) deep = i % 2 ? { level: deep, i } : [deep, i];

const PAYLOADS: Array<[string, unknown]> = [
  ["a string", "Approve?"],
  ["a question and its draft", { question: "Approve?", draft: "Refund of 120 EUR to ACME" }],
  ["keys out of order, nested", { z: 1, a: { c: [1, 2, { y: true, b: null }], b: "x" }, m: [] }],
  ["numbers", [0, -0, 1.5, -1e21, 1e-7, Number.NaN, Number.POSITIVE_INFINITY, Number.MAX_SAFE_INTEGER]],
  ["undefined, at the root", undefined],
  ["undefined in objects and arrays, holes", { a: undefined, b: withHole }],
  ["null and booleans", { t: true, f: false, n: null }],
  ["BigInt", { big: 12345678901234567890n, list: [1n] }],
  [
    "Map and Set",
    {
      m: new Map<unknown, unknown>([
        ["k", { b: 1, a: 2 }],
        [1, new Set([3, "x"])],
      ]),
      s: new Set(),
    },
  ],
  ["Date", { at: new Date("2024-01-02T03:04:05.678Z") }],
  ["functions and symbols", { f: () => 1, s: Symbol("s"), list: [() => 1, Symbol("t")] }],
  ["toJSON", { v: { toJSON: (key: string) => ({ key, b: 2, a: 1 }) }, u: { toJSON: () => undefined } }],
  ["a class instance", new Point(2, 1)],
  ["number-like keys", { b: 1, 10: "ten", 2: "two", "1a": 3, "-1": 4, "01": 5, a: 6 }],
  ["an own __proto__ key", JSON.parse('{"b":1,"__proto__":{"x":1},"a":2}')],
  ["an own __proto__ key holding null", JSON.parse('{"__proto__":null,"a":2}')],
  ["a null-prototype object", Object.assign(Object.create(null), { b: 1, a: 2 })],
  ["boxed primitives", { s: new String("ab"), n: new Number(3), b: new Boolean(false) }],
  ["quotes, escapes, unicode", { 'k"ey': "line\nbreak \u2028 \ud83d\ude00 \\", é: "\u0000" }],
  ["an empty object and array", [{}, []]],
  ["deep nesting", deep],
];

describe("canonical JSON of interrupt payloads", () => {
  it("is the text stored digests were made of", () => {
    const payload = { b: [undefined, 2n, new Set(["x"])], a: { d: 1, c: new Map([["k", null]]) } };
    const text = '{"a":{"c":{"__map__":[["k",null]]},"d":1},"b":["__undefined__","2n",{"__set__":["x"]}]}';
    expect(oracle(payload)).toBe(text);
    expect(canonicalJson(payload)).toBe(text);
  });

  it.each(PAYLOADS)("writes what the sorting replacer wrote: %s", (_name, value) => {
    expect(canonicalJson(value)).toBe(oracle(value));
  });

  it("fails on a cyclic payload as JSON.stringify did", () => {
    const cyclic: unknown[] = [1];
    cyclic.push(cyclic);
    expect(() => oracle(cyclic)).toThrow(TypeError);
    expect(() => canonicalJson(cyclic)).toThrow(TypeError);
  });
});
