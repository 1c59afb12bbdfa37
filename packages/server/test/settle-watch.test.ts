/** A waiter for answers to settle hears events from the moment it watches, across its looks. */
import { describe, expect, it } from "vitest";
import { type BusEvent, LocalBus } from "../dist/events/bus.js";
import { SettleWatch } from "../dist/runs/settle-watch.js";

const elapsed = async (wait: Promise<void>) => {
  const started = performance.now();
  await wait;
  return performance.now() - started;
};

describe("SettleWatch", () => {
  it("an event heard between a look and the wait ends the wait at once, not after the look interval", async () => {
    const bus = new LocalBus();
    const watch = await SettleWatch.open(bus);
    // The run settles after the waiter's look and before it waits: the old waiter missed this.
    await bus.publish({ type: "answers.settled", run_id: "r1" });
    expect(await elapsed(watch.settled("r1", 5_000))).toBeLessThan(1_000);
    // Heard once: the next wait on the same run waits again.
    expect(await elapsed(watch.settled("r1", 50))).toBeGreaterThanOrEqual(40);
    watch.close();
  });

  it("wakes on the run's end while waiting, asks the run's process to settle, and ignores other runs", async () => {
    const bus = new LocalBus();
    const seen: BusEvent[] = [];
    bus.subscribe((event) => seen.push(event));
    const watch = await SettleWatch.open(bus);
    const waited = elapsed(watch.settled("r2", 5_000));
    await bus.publish({ type: "run.done", run_id: "other" });
    await bus.publish({ type: "run.done", run_id: "r2" });
    expect(await waited).toBeLessThan(1_000);
    expect(seen[0]).toEqual({ type: "answers.settle", run_id: "r2" });
    // `other` was remembered, so a wait on it now ends at once.
    expect(await elapsed(watch.settled("other", 5_000))).toBeLessThan(1_000);
    watch.close();
  });

  it("with nothing heard, a wait ends after its interval; close ends a wait and stops listening", async () => {
    const bus = new LocalBus();
    const watch = await SettleWatch.open(bus);
    expect(await elapsed(watch.settled(null, 60))).toBeGreaterThanOrEqual(50);
    const waited = elapsed(watch.settled("r3", 5_000));
    watch.close();
    expect(await waited).toBeLessThan(1_000);
    await bus.publish({ type: "answers.settled", run_id: "r4" });
    expect(await elapsed(watch.settled("r4", 50))).toBeGreaterThanOrEqual(40);
  });
});
