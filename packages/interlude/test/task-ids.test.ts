/**
 * Task ids never change: stored pending writes are keyed by them, so a thread paused by an
 * earlier version resumes with the writes its finished tasks left. The ids below were given by
 * the first release's hash; the ids of a step made from one shared start are the same ids.
 */
import { describe, expect, it } from "vitest";
import { FastIdsAfter, fastId } from "../src/algo/hash.js";

const PINNED: ReadonlyArray<readonly [text: string, id: string]> = [
  ["01a23b10-b9f9-7000-0000-031757245f1e||3|push|0|worker", "c93cdadb-57ae-fab6-480c-9506e963c99c"],
  ["01a23b10-b9f9-7000-0000-031757245f1e|outer:1f2e|0|pull|agent", "67829395-0d02-a2f2-622f-d8ac30e3c4c2"],
  ["", "811c9dc5-5ad1-e806-cbbc-9c5353270c13"],
  ["é|😀|step", "43675b91-9c3b-9394-c188-dca5dfac44c2"],
];

describe("task ids", () => {
  it("are the ids earlier versions stored pending writes under", () => {
    for (const [text, id] of PINNED) expect(fastId(text)).toBe(id);
  });

  it("made after a shared start are the ids of the whole text, wherever the text is cut", () => {
    for (const [text, id] of PINNED) {
      for (let cut = 0; cut <= text.length; cut++) {
        expect(new FastIdsAfter(text.slice(0, cut)).id(text.slice(cut))).toBe(id);
      }
    }
    const ids = new FastIdsAfter("01a23b10-b9f9-7000-0000-031757245f1e||3|push|");
    for (let i = 0; i < 200; i++)
      expect(ids.id(`${i}|worker`)).toBe(fastId(`01a23b10-b9f9-7000-0000-031757245f1e||3|push|${i}|worker`));
  });
});
