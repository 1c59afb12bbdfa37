/** `interlude resume` and `interlude fork`: write to a thread, following the run with a progress line. */
import { INTERRUPT } from "@interlude/core";
import { Progress } from "../progress.js";
import { sseEvents } from "../sse.js";
import { summary } from "../table.js";
import { CliError, type Target } from "../target.js";

function parseJson(text: string, flag: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new CliError(`${flag} must be JSON (for a string, quote it: '"yes"'). Got: ${text}`);
  }
}

async function assistantOf(target: Target, threadId: string): Promise<string> {
  const thread = await target.json<any>(`/threads/${encodeURIComponent(threadId)}`);
  const assistant = thread.metadata?.assistant_id ?? thread.metadata?.graph_id;
  if (!assistant) throw new CliError(`Thread ${threadId} has never run, so it has no graph to resume.`);
  return assistant;
}

/** Streams a run, showing which node runs; returns the outcome line. */
async function follow(target: Target, threadId: string, body: Record<string, unknown>): Promise<string> {
  const progress = new Progress("starting");
  try {
    const response = await target.request(`/threads/${encodeURIComponent(threadId)}/runs/stream`, {
      method: "POST",
      body: { ...body, stream_mode: ["updates"] },
    });
    if (!response.ok) {
      const error = await response.json().catch(() => ({}));
      throw new CliError(
        `${response.status} ${(error as any).code ?? ""}: ${(error as any).message ?? response.statusText}`,
      );
    }
    let steps = 0;
    let failure: any;
    for await (const { event, data } of sseEvents(response)) {
      if (event === "updates") {
        steps++;
        const node = Object.keys(data ?? {})[0] ?? "?";
        progress.update(`step ${steps}: ${node === INTERRUPT ? "paused" : node}`);
      }
      if (event === "error") failure = data;
    }
    if (failure) throw new CliError(`The run failed: ${failure.message ?? JSON.stringify(failure)}`);
    return `${steps} step(s) run.`;
  } finally {
    progress.done();
  }
}

async function outcome(target: Target, threadId: string): Promise<string> {
  const thread = await target.json<any>(`/threads/${encodeURIComponent(threadId)}`);
  const waiting = Object.values(thread.interrupts ?? {}).flat() as any[];
  const lines = [`Thread ${threadId} is ${thread.status}.`];
  for (const i of waiting) lines.push(`  waiting: ${i.id}  ${summary(i.value)}`);
  return lines.join("\n");
}

export async function resume(
  target: Target,
  threadId: string,
  flags: { id?: string; value: string; reason?: string },
): Promise<string> {
  const value = parseJson(flags.value, "--value");
  const assistant = await assistantOf(target, threadId);
  const resumeValue = flags.id ? { [flags.id]: value } : value;
  const ran = await follow(target, threadId, {
    assistant_id: assistant,
    command: { resume: resumeValue, ...(flags.reason ? { reason: flags.reason } : {}) },
  });
  return `Answered. ${ran}\n${await outcome(target, threadId)}`;
}

export async function fork(
  target: Target,
  threadId: string,
  checkpointId: string,
  flags: { values?: string; asNode?: string; run?: boolean },
): Promise<string> {
  const values = flags.values === undefined ? null : parseJson(flags.values, "--values");
  const body: Record<string, unknown> = { checkpoint_id: checkpointId, values };
  if (flags.asNode) body.as_node = flags.asNode;
  const saved = await target.json<any>(`/threads/${encodeURIComponent(threadId)}/state`, { method: "POST", body });
  const lines = [`Forked thread ${threadId} at ${checkpointId}: new checkpoint ${saved.checkpoint.checkpoint_id}.`];
  if (flags.run)
    lines.push(await follow(target, threadId, { assistant_id: await assistantOf(target, threadId), input: null }));
  lines.push(await outcome(target, threadId));
  return lines.join("\n");
}
