/** What the tests that kill a server under load check of every thread it served (crash-*.test.ts). */
import { expect } from "vitest";
import { json, until } from "./helpers.js";

export async function post(url: string, body: unknown): Promise<any> {
  const response = await json(url, { method: "POST", body: JSON.stringify(body) });
  if (response.status >= 300) throw new Error(`${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

/**
 * A thread of the `loop` graph whose client answered `acked` before its server was killed, as
 * the server at `url` shows it once the dead server's run is found: the run went back to the
 * queue and continued from its last checkpoint to its next question (a client going away does
 * not stop its run), every acknowledged answer kept in order, at most the one in flight besides,
 * none twice; then answered once more there.
 */
export async function expectResumable(url: string, threadId: string, acked: readonly string[], timeoutMs = 10_000) {
  const thread = await until(async () => {
    const t = (await json(`${url}/threads/${threadId}`)).body;
    const runs: Array<{ status: string }> = (await json(`${url}/threads/${threadId}/runs`)).body;
    return t.status !== "busy" && runs.every((r) => r.status !== "pending" && r.status !== "running") && t;
  }, timeoutMs);
  // Never stopped between steps, nor ended lost: it waits for its question.
  expect({ status: thread.status, error: thread.error ?? null }).toEqual({ status: "interrupted", error: null });
  const answers: string[] = thread.values.answers;
  expect(answers.slice(0, acked.length)).toEqual(acked);
  expect(answers.length - acked.length).toBeLessThanOrEqual(1);
  expect(new Set(answers).size).toBe(answers.length);
  const pending = Object.values(thread.interrupts as Record<string, any[]>).flat()[0];
  expect(pending.value.n).toBe(answers.length);
  const next = await post(`${url}/threads/${threadId}/runs/wait`, {
    assistant_id: "loop",
    command: { resume: { [pending.id]: "after" } },
  });
  expect(next.answers).toEqual([...answers, "after"]);
}
