import { describeStoreConformance } from "@interlude/checkpoint-conformance";
import { InMemoryStore } from "@interlude/core";
import { describe, expect, it } from "vitest";

describeStoreConformance("InMemoryStore", async () => ({ store: new InMemoryStore(), close: async () => {} }), {
  durable: false,
});

describe("InMemoryStore's options", () => {
  it("refuses one it does not take, naming it, rather than ignoring it", () => {
    expect(() => new InMemoryStore({ indx: { dims: 2 } } as never)).toThrow(
      expect.objectContaining({
        code: "UNSUPPORTED_STORE_OPTION",
        message: expect.stringMatching(/store option indx .*InMemoryStore takes no options/),
      }),
    );
    expect(() => new InMemoryStore({ index: { dims: 2 } })).toThrow(/index .*Semantic search needs embeddings/);
    expect(() => new InMemoryStore({ index: undefined })).not.toThrow();
  });
});
