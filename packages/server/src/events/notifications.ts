/**
 * How bus events travel in PostgreSQL's NOTIFY payloads: as JSON arrays, as many events in one
 * notification as fit its size limit. Each NOTIFY is a statement, and a notification every
 * listening process wakes for: an answer's finishing transaction announced its three events
 * (interrupt resolved, interrupt created, run done) with three.
 *
 * Two channels, named per deployment (store/deployment-names.ts). Every process listens to the
 * bus channel, for the events addressed to whichever process executes a run or takes work
 * (cancel, dispatch, queued, settle, follow, assistant changed): rare. What every answer
 * announces (interrupts created and resolved, runs done, answers settled, run events stored)
 * goes to the watched channel, which a process listens to only while one of its clients waits
 * on it (Bus.watch): an inbox stream, a run executing elsewhere.
 * With one channel, every answer woke every process (two servers and a worker: three parses
 * of each answer's notification, two of them for nobody), ~0.1 ms of CPU each.
 *
 * A watching process holds the deployment's watch lock (an advisory lock) shared on its LISTEN
 * connection, so that a watched event nobody watches is not sent at all: PostgreSQL wakes every
 * LISTENing backend of the database for each notification, whatever its channel (two context
 * switches per answer with three processes). A publishing transaction sends watched events only
 * if it cannot take this lock exclusively; having taken it, it holds it until it commits, so a
 * process starting to watch (LISTEN, then this lock) gets the lock only after that commit, and
 * reads what it committed. Any process that watches makes every watched event go out, to every
 * listener.
 */
import type { DeploymentNames } from "../store/deployment-names.js";
import type { BusEvent } from "./bus.js";

/** The deployment's two channels. */
type Channels = Pick<DeploymentNames, "busChannel" | "watchChannel">;

const WATCHED_TYPES = [
  "interrupt.created",
  "interrupt.resolved",
  "run.done",
  "answers.settled",
  "run.events",
  "run.followed",
] as const;
const WATCHED: ReadonlySet<string> = new Set(WATCHED_TYPES);

/** The events that go to WATCH_CHANNEL: heard only by processes that watch (Bus.watch). */
export type WatchedEvent = Extract<BusEvent, { type: (typeof WATCHED_TYPES)[number] }>;

function channelOf(event: BusEvent, channels: Channels): string {
  return WATCHED.has(event.type) ? channels.watchChannel : channels.busChannel;
}
/**
 * NOTIFY payloads are limited to 8000 bytes (a longer one fails its whole transaction); an
 * interrupt event larger than this is sent without its user data (value, answer, schema).
 */
const MAX_PAYLOAD = 7000;
const USER_DATA = ["value", "answer", "response_schema"] as const;

/** The event's JSON and its length in bytes. */
function jsonOf(event: BusEvent): [string, number] {
  const json = JSON.stringify(event);
  const bytes = Buffer.byteLength(json);
  if (bytes <= MAX_PAYLOAD) return [json, bytes];
  const slim: Record<string, unknown> = { ...event, truncated: true };
  for (const key of USER_DATA) if (key in slim) slim[key] = null;
  const text = JSON.stringify(slim);
  return [text, Buffer.byteLength(text)];
}

/**
 * The NOTIFYs that carry `events`, in order (as `pg_notify(channels[i], payloads[i])`): one per
 * run of events on the same channel, split where they do not fit.
 */
export function outgoing(events: readonly BusEvent[], names: Channels): { channels: string[]; payloads: string[] } {
  const channels: string[] = [];
  const payloads: string[] = [];
  for (let from = 0; from < events.length; ) {
    const channel = channelOf(events[from]!, names);
    let to = from + 1;
    while (to < events.length && channelOf(events[to]!, names) === channel) to++;
    for (const payload of notificationsOf(events.slice(from, to))) {
      channels.push(channel);
      payloads.push(payload);
    }
    from = to;
  }
  return { channels, payloads };
}

/** The NOTIFY payloads that carry `events` (all on one channel), in order: one unless they do not fit. */
export function notificationsOf(events: readonly BusEvent[]): string[] {
  const payloads: string[] = [];
  let pack: string[] = [];
  let bytes = 2;
  for (const event of events) {
    const [json, length] = jsonOf(event);
    const size = length + 1;
    if (pack.length && bytes + size > MAX_PAYLOAD) {
      payloads.push(`[${pack.join(",")}]`);
      pack = [];
      bytes = 2;
    }
    pack.push(json);
    bytes += size;
  }
  if (pack.length) payloads.push(`[${pack.join(",")}]`);
  return payloads;
}

/** The events a payload carries: a list, or one event (as processes of earlier versions send them); none if it is not ours. */
export function eventsOf(payload: string): BusEvent[] {
  try {
    const parsed: unknown = JSON.parse(payload);
    const events = Array.isArray(parsed) ? parsed : [parsed];
    return events.filter(
      (e): e is BusEvent => typeof e === "object" && e !== null && typeof (e as BusEvent).type === "string",
    );
  } catch {
    return [];
  }
}
