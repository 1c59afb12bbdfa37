/** Bus events in NOTIFY payloads (events/notifications.ts): one notification per batch, split only when it does not fit. */
import { describe, expect, it } from "vitest";
import type { BusEvent } from "../dist/events/bus.js";
import { eventsOf, notificationsOf, outgoing } from "../dist/events/notifications.js";
import { deploymentNames } from "../dist/store/deployment-names.js";

const resolved = (interruptId: string, answer: unknown): BusEvent => ({
  type: "interrupt.resolved",
  thread_id: "t1",
  interrupt_id: interruptId,
  by: "alice",
  answer,
  at: "2026-12-01T00:00:00.000Z",
});

describe("bus notifications", () => {
  it("an answer's three events go out as one payload, read back in order", () => {
    const events: BusEvent[] = [resolved("i1", "yes"), { type: "run.done", run_id: "r1" }, { type: "run.queued" }];
    const payloads = notificationsOf(events);
    expect(payloads).toHaveLength(1);
    expect(eventsOf(payloads[0]!)).toEqual(events);
  });

  it("events that do not fit one payload are split, none lost, order kept, each payload under 8000 bytes", () => {
    const events = Array.from({ length: 12 }, (_, i) => resolved(`i${i}`, "é".repeat(1000)));
    const payloads = notificationsOf(events);
    expect(payloads.length).toBeGreaterThan(1);
    for (const payload of payloads) expect(Buffer.byteLength(payload)).toBeLessThan(8000);
    expect(payloads.flatMap(eventsOf)).toEqual(events);
  });

  it("an interrupt event too large on its own is sent without its user data, marked truncated", () => {
    const created: BusEvent = {
      type: "interrupt.created",
      thread_id: "t1",
      interrupt_id: "big",
      graph_id: "g",
      assistant_id: "a",
      value: { text: "x".repeat(20_000) },
      response_schema: { type: "string" },
      ns: [],
      created_at: "2026-12-01T00:00:00.000Z",
    };
    const payloads = notificationsOf([created, resolved("big", "y".repeat(20_000))]);
    for (const payload of payloads) expect(Buffer.byteLength(payload)).toBeLessThan(8000);
    expect(payloads.flatMap(eventsOf)).toEqual([
      { ...created, value: null, response_schema: null, truncated: true },
      { ...resolved("big", null), truncated: true },
    ]);
  });

  it("per-answer events go to the watched channel, the others to the bus's; runs of each stay in order", () => {
    const events: BusEvent[] = [
      resolved("i1", "yes"),
      { type: "run.done", run_id: "r1" },
      { type: "run.queued" },
      { type: "run.cancel", run_id: "r2", action: "interrupt" },
      { type: "answers.settled", run_id: "r3" },
    ];
    const names = deploymentNames("staging");
    const { channels, payloads } = outgoing(events, names);
    expect(channels).toEqual([names.watchChannel, names.busChannel, names.watchChannel]);
    expect(payloads.map(eventsOf)).toEqual([events.slice(0, 2), events.slice(2, 4), events.slice(4)]);
  });

  it.each([
    ['{"type":"run.done","run_id":"r1"}', [{ type: "run.done", run_id: "r1" }]],
    ["not json", []],
    ['[1, null, {"no_type": true}]', []],
    ["[]", []],
  ])("payload %s is read as %j (a single event: an earlier version's)", (payload, expected) => {
    expect(eventsOf(payload)).toEqual(expected);
  });
});
