/**
 * A client of this process follows a streamed or waited run that another process executes (or
 * executed): that process stores the run's events only once asked (runs/event-relay.ts). The
 * follower waits for the answer, not for a timer: on a loaded machine the holder may take
 * seconds to store a finished run's log, and giving up after a fixed window sent the client the
 * run's final values instead of its events.
 */
import { randomUUID } from "node:crypto";
import type { Bus } from "../events/bus.js";

/** How often the ask is repeated while unanswered (a notification the holder missed, e.g. while its bus reconnected). */
const REPEAT_MS = 1_000;
/** Unanswered this long, the holder is taken to be gone: its events will never come. */
const GIVE_UP_MS = 15_000;

/**
 * Asks the run's `owner` to store the run's events and resolves once it has answered: true when
 * they are stored (all those logged so far; later ones announce themselves with `run.events`),
 * false when it holds none (the run finished long ago), the owner never answered, or `signal`
 * aborted.
 */
export function askToFollow(bus: Bus, runId: string, owner: string, signal: AbortSignal): Promise<boolean> {
  const ask = randomUUID();
  return new Promise((resolve) => {
    const end = (stored: boolean) => {
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
    const repeat = setInterval(send, REPEAT_MS);
    const giveUp = setTimeout(() => end(false), GIVE_UP_MS);
    signal.addEventListener("abort", aborted);
    if (signal.aborted) return end(false);
    send();
  });
}
