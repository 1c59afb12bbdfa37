/** A waiter for answers to settle hears events from the moment it watches, across its looks. */
import { describe, expect, it } from "vitest";
import { type BusEvent, LocalBus } from "../dist/events/bus.js";
import { SettleWatch } from "../dist/runs/settle-watch.js";

const elapsed = async (wait: Promise<void>) => {
  const started = performance.now();
  await wait;
  return performance.now() - started;
};
const pendingAfter = (wait: Promise<void>, ms: number) =>
  Promise.race([wait.then(() => false), new Promise<boolean>((resolve) => setTimeout(() => resolve(true), ms))]);

describe("SettleWatch", () => {
  it("an event heard between a look and the wait ends the wait at once, not after the look interval", async () => {
    const bus = new LocalBus();
    const watch = await SettleWatch.open(bus, "r1");
    // The run settles after the waiter's look and before it waits: the old waiter missed this.
    await bus.publish({ type: "answers.settled", run_id: "r1" });
    expect(await elapsed(watch.settled("r1", 5_000))).toBeLessThan(1_000);
    // Heard once: the next wait on the same run waits again.
    expect(await elapsed(watch.settled("r1", 50))).toBeGreaterThanOrEqual(40);
    watch.close();
  });

  it("asks the run's process to settle when it opens and when it waits; wakes on that run's end only", async () => {
    const bus = new LocalBus();
    const asks: BusEvent[] = [];
    bus.subscribe((event) => event.type === "answers.settle" && asks.push(event));
    const watch = await SettleWatch.open(bus, "r2");
    expect(asks).toEqual([{ type: "answers.settle", run_id: "r2" }]);
    const waited = watch.settled("r2", 5_000);
    expect(asks).toHaveLength(2);
    await bus.publish({ type: "run.done", run_id: "other" });
    expect(await pendingAfter(waited, 100)).toBe(true);
    await bus.publish({ type: "run.done", run_id: "r2" });
    expect(await pendingAfter(waited, 1_000)).toBe(false);
    watch.close();
  });

  it("remembers only the runs it waits on: the ends of other runs are not kept", async () => {
    const bus = new LocalBus();
    const watch = await SettleWatch.open(bus, "r3");
    for (let i = 0; i < 1_000; i++) await bus.publish({ type: "run.done", run_id: `x${i}` });
    // x7 was never waited on, so its end was not kept: a wait on it lasts its interval.
    expect(await elapsed(watch.settled("x7", 50))).toBeGreaterThanOrEqual(40);
    // A run waited on once is remembered from then on.
    await bus.publish({ type: "answers.settled", run_id: "x7" });
    expect(await elapsed(watch.settled("x7", 5_000))).toBeLessThan(1_000);
    watch.close();
  });

  it("with nothing heard, a wait ends after its interval; close ends a wait and stops listening", async () => {
    const bus = new LocalBus();
    const watch = await SettleWatch.open(bus, null);
    expect(await elapsed(watch.settled(null, 60))).toBeGreaterThanOrEqual(50);
    const waited = elapsed(watch.settled("r4", 5_000));
    watch.close();
    expect(await waited).toBeLessThan(1_000);
    await bus.publish({ type: "answers.settled", run_id: "r4" });
    expect(await elapsed(watch.settled("r4", 50))).toBeGreaterThanOrEqual(40);
  });
});
