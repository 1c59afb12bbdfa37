/**
 * How bus events travel in PostgreSQL's NOTIFY payloads: as JSON arrays, as many events in one
 * notification as fit its size limit. Each NOTIFY is a statement, and a notification every
 * listening process wakes for: an answer's finishing transaction announced its three events
 * (interrupt resolved, interrupt created, run done) with three.
 */
import type { BusEvent } from "./bus.js";

export const BUS_CHANNEL = "interlude_server_events";
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

/** The NOTIFY payloads that carry `events`, in order: one unless they do not fit. */
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
