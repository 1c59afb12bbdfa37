import { describe } from "vitest";
import { basicsSuite } from "./basics.js";
import { concurrencySuite } from "./concurrency.js";
import { deltasSuite } from "./deltas.js";
import { fenceSuite } from "./fence.js";
import type { MakeSaver } from "./harness.js";
import { namespacesSuite } from "./namespaces.js";
import { retentionSuite } from "./retention.js";
import { storageErrorsSuite } from "./storage-errors.js";
import { valuesSuite } from "./values.js";
import { writesSuite } from "./writes.js";

export { collect, freshThreadId, makeCheckpoint, ThreadWriter } from "./fixtures.js";
export type { ConformanceSaverOptions, MakeSaver, SaverHarness } from "./harness.js";
export { describeStoreConformance, type MakeStore, type StoreHarness } from "./store.js";

/** What a backend can do beyond the contract, deciding which tests apply to it. */
export interface SaverCapabilities {
  /** A second saver instance can open the same storage (`makeSecondSaver`): not in-memory stores. */
  sharedStorage?: boolean;
  /** The test can make its storage fail (`breakStorage`): not in-memory stores. */
  breakable?: boolean;
  /** The storage refuses an owner's writes once another took its claim (fence.ts); needs `makeSecondSaver`. */
  fencesWrites?: boolean;
}

/**
 * The behaviour every checkpoint saver must have. Call it from the saver's own test file:
 * `describeSaverConformance("SqliteSaver", async () => ({ saver, close }), { sharedStorage: true, breakable: true })`.
 * Tests of capabilities a backend lacks are not registered at all (rather than skipped).
 */
export function describeSaverConformance(
  name: string,
  makeSaver: MakeSaver,
  capabilities: SaverCapabilities = { sharedStorage: true, breakable: true },
): void {
  describe(`${name} conformance`, () => {
    basicsSuite(makeSaver);
    namespacesSuite(makeSaver);
    writesSuite(makeSaver);
    valuesSuite(makeSaver);
    deltasSuite(makeSaver, capabilities.sharedStorage === true);
    concurrencySuite(makeSaver);
    retentionSuite(makeSaver);
    if (capabilities.breakable) storageErrorsSuite(makeSaver);
    if (capabilities.fencesWrites) fenceSuite(makeSaver);
  });
}
export { expectConsistentHistory, killWriterMidway } from "./crash.js";
