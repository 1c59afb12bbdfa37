import { describe } from "vitest";
import type { MakeSaver } from "./harness.js";
import { basicsSuite } from "./basics.js";
import { namespacesSuite } from "./namespaces.js";
import { writesSuite } from "./writes.js";
import { valuesSuite } from "./values.js";
import { deltasSuite } from "./deltas.js";
import { concurrencySuite } from "./concurrency.js";
import { retentionSuite } from "./retention.js";
import { storageErrorsSuite } from "./storage-errors.js";

export type { ConformanceSaverOptions, MakeSaver, SaverHarness } from "./harness.js";
export { ThreadWriter, freshThreadId, makeCheckpoint, collect } from "./fixtures.js";

/**
 * The behaviour every checkpoint saver must have. Call it from the saver's own test file:
 * `describeSaverConformance("SqliteSaver", async () => ({ saver, close }))`.
 */
export function describeSaverConformance(name: string, makeSaver: MakeSaver): void {
  describe(`${name} conformance`, () => {
    basicsSuite(makeSaver);
    namespacesSuite(makeSaver);
    writesSuite(makeSaver);
    valuesSuite(makeSaver);
    deltasSuite(makeSaver);
    concurrencySuite(makeSaver);
    retentionSuite(makeSaver);
    storageErrorsSuite(makeSaver);
  });
}
export { killWriterMidway, expectConsistentHistory } from "./crash.js";
