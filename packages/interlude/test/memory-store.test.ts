import { describeStoreConformance } from "@interlude/checkpoint-conformance";
import { InMemoryStore } from "@interlude/core";

describeStoreConformance("InMemoryStore", async () => ({ store: new InMemoryStore(), close: async () => {} }), {
  durable: false,
});
