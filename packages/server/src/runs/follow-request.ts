/**
 * A client of this process follows a streamed or waited run that another process executes (or
 * executed): that process stores the run's events only once asked (runs/event-relay.ts). The
 * follower waits for the answer, not for a timer: on a loaded machine the holder may take
 * seconds to store a finished run's log, and giving up after a fixed window sent the client the
 * run's final values instead of its events.
 */
import { randomUUID } from "node:crypto";
import type { Bus } from "../events/bus.js";

/**
 * How often, while unanswered, the follower checks that the owner still hears the bus (gone, its
 * events will never come) and asks again (a notification it missed while its bus reconnected).
 */
const REPEAT_MS = 1_000;
/** The owner missing this many checks in a row is gone (a reconnecting bus misses one). */
const MISSED_CHECKS = 2;
/** Unanswered this long, the owner is taken to be gone whatever the checks say. */
const GIVE_UP_MS = 30_000;

/**
 * Asks the run's `owner` to store the run's events and resolves once it has answered: true when
 * they are stored (all those logged so far; later ones announce themselves with `run.events`),
 * false when it holds none (the run finished long ago), the owner is gone (its process stopped),
 * or `signal` aborted. The answer is a watched event (Bus.watch), watched before asking.
 */
export async function askToFollow(bus: Bus, runId: string, owner: string, signal: AbortSignal): Promise<boolean> {
  const unwatch = await bus.watch();
  try {
    return await asked(bus, runId, owner, signal);
  } finally {
    unwatch();
  }
}

function asked(bus: Bus, runId: string, owner: string, signal: AbortSignal): Promise<boolean> {
  const ask = randomUUID();
  return new Promise((resolve) => {
    let over = false;
    const end = (stored: boolean) => {
      over = true;
      clearInterval(repeat);
      clearTimeout(giveUp);
      unsubscribe();
      signal.removeEventListener("abort", aborted);
      resolve(stored);
    };
    const aborted = () => end(false);
    const unsubscribe = bus.subscribe((event) => {
      if (event.type === "run.followed" && event.ask === ask) end(event.stored);
    });
    const send = () => void bus.publish({ type: "run.follow", run_id: runId, owner, ask }).catch(() => undefined);
    let missed = 0;
    const check = async () => {
      const hears = (await bus.hears?.(owner).catch(() => true)) ?? true;
      missed = hears ? 0 : missed + 1;
      if (over) return;
      if (missed >= MISSED_CHECKS) end(false);
      else send();
    };
    const repeat = setInterval(() => void check(), REPEAT_MS);
    const giveUp = setTimeout(() => end(false), GIVE_UP_MS);
    signal.addEventListener("abort", aborted);
    if (signal.aborted) return end(false);
    send();
  });
}
