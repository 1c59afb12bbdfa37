import { afterEach, beforeEach } from "vitest";
import type { ConformanceSaverOptions, MakeSaver, SaverHarness } from "./harness.js";

/** A fresh harness per test, closed afterwards (also any extra ones the test opened). */
export function useHarness(make: MakeSaver): {
  current: SaverHarness;
  open(options?: ConformanceSaverOptions): Promise<SaverHarness>;
} {
  const opened: SaverHarness[] = [];
  const ref = {
    current: undefined as unknown as SaverHarness,
    async open(options?: ConformanceSaverOptions) {
      const harness = await make(options);
      opened.push(harness);
      return harness;
    },
  };
  beforeEach(async () => {
    ref.current = await ref.open();
  });
  afterEach(async () => {
    for (const harness of opened.splice(0)) await harness.close();
  });
  return ref;
}
