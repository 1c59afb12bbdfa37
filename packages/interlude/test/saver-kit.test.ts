import { listSql, type PreparedPut, type PutSteps, putInSteps } from "@interlude/core/saver-kit";
import { describe, expect, it } from "vitest";

/** A put of one full copy and one delta (base 1), as the kit hands it to a backend. */
function put(expectedHead: string | null | undefined): PreparedPut {
  const blob = (channel: string, version: number, base: number | null) => ({
    channel,
    version,
    base,
    data: "[]",
    plan: {} as PreparedPut["blobs"][number]["plan"],
  });
  return {
    threadId: "t",
    ns: "",
    id: "c2",
    parentId: "c1",
    createdAt: 0,
    record: "{}",
    metadata: "{}",
    blobs: [blob("a", 2, null), blob("messages", 2, 1)],
    versions: { a: 2, messages: 2 },
    expectedHead,
    durable: true,
  };
}

/** Steps over a store whose head is `head` and which holds the blobs in `present`. */
function recorder(head: string | null, present: string[]) {
  const calls: string[] = [];
  const steps: PutSteps<string | Uint8Array> = {
    head: () => (calls.push("head"), head),
    hasBlob: (_put, channel, version) => (calls.push(`has ${channel}@${version}`), present.includes(channel)),
    writeBlob: (_put, blob) => void calls.push(`blob ${blob.channel}@${blob.version}`),
    writeCheckpoint: (p) => void calls.push(`checkpoint ${p.id}`),
  };
  return { steps, calls };
}

describe("putInSteps: the put algorithm for step-wise backends", () => {
  it.each([
    {
      case: "no head expected: bases checked, then every row written",
      expected: undefined,
      head: "c9",
      present: ["messages"],
      outcome: "stored",
      calls: ["has messages@1", "blob a@2", "blob messages@2", "checkpoint c2"],
    },
    {
      case: "the expected head is there",
      expected: "c1",
      head: "c1",
      present: ["messages"],
      outcome: "stored",
      calls: ["head", "has messages@1", "blob a@2", "blob messages@2", "checkpoint c2"],
    },
    {
      case: "the head moved: nothing written, the head reported",
      expected: "c1",
      head: "c5",
      present: ["messages"],
      outcome: { head: "c5" },
      calls: ["head"],
    },
    {
      case: "a first put (null) on a thread that has a checkpoint",
      expected: null,
      head: "c1",
      present: [],
      outcome: { head: "c1" },
      calls: ["head"],
    },
    {
      case: "a delta's base is gone: nothing written, the kit retries with full copies",
      expected: "c1",
      head: "c1",
      present: [],
      outcome: "base-missing",
      calls: ["head", "has messages@1"],
    },
  ])("$case", ({ expected, head, present, outcome, calls }) => {
    const store = recorder(head, present);
    expect(putInSteps(put(expected), store.steps)).toEqual(outcome);
    expect(store.calls).toEqual(calls);
  });
});

describe("listSql: the list() query of SQL backends", () => {
  it("filters on what the scope names, newest first, with the driver's placeholders", () => {
    const scope = { threadId: "t", ns: "", before: "c9", limit: 5, filtered: false };
    expect(listSql("checkpoints", scope, (n) => `$${n}`)).toEqual({
      text: 'SELECT thread_id AS "threadId", checkpoint_ns AS "ns", checkpoint_id AS "id", metadata FROM checkpoints WHERE thread_id = $1 AND checkpoint_ns = $2 AND checkpoint_id < $3 ORDER BY checkpoint_id DESC LIMIT 5',
      params: ["t", "", "c9"],
    });
  });

  it("lists everything when the scope is empty (a metadata filter is applied after, so no limit)", () => {
    expect(listSql("checkpoints", { filtered: true }, () => "?").text).toBe(
      'SELECT thread_id AS "threadId", checkpoint_ns AS "ns", checkpoint_id AS "id", metadata FROM checkpoints ORDER BY checkpoint_id DESC',
    );
  });
});
