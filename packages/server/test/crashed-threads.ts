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
 * the server at `url` shows it once the dead server's run is found: every acknowledged answer
 * kept in order, at most the one in flight besides, none twice; then answered once more there.
 */
export async function expectResumable(url: string, threadId: string, acked: readonly string[], timeoutMs = 10_000) {
  // Its run is declared lost once its lease lapses: the thread then waits for its question
  // again, or, killed between steps, says the run was lost.
  const thread = await until(async () => {
    const t = (await json(`${url}/threads/${threadId}`)).body;
    return (t.status === "interrupted" || t.status === "error") && t;
  }, timeoutMs);
  // An errored thread says why (its run was lost); a thread waiting for its question has no error.
  expect(thread.error?.code ?? null).toBe(thread.status === "error" ? "RUN_LOST" : null);
  const answers: string[] = thread.values.answers;
  expect(answers.slice(0, acked.length)).toEqual(acked);
  expect(answers.length - acked.length).toBeLessThanOrEqual(1);
  expect(new Set(answers).size).toBe(answers.length);
  const path = `${url}/threads/${threadId}/runs/wait`;
  // Killed after saving the step its answer completed but before asking again: nothing is
  // pending; a run without input continues from that checkpoint and asks.
  const listed = Object.values(thread.interrupts as Record<string, any[]>).flat();
  expect(listed.length > 0).toBe(thread.status === "interrupted");
  const pending = listed[0] ?? (await post(path, { assistant_id: "loop" })).__interrupt__[0];
  expect(pending.value.n).toBe(answers.length);
  const next = await post(path, { assistant_id: "loop", command: { resume: { [pending.id]: "after" } } });
  expect(next.answers).toEqual([...answers, "after"]);
}
