/**
 * What a node's options add around its attempts: retries, a timeout on each attempt, an error
 * handler once the retries are spent, and a cache of its results across runs and threads.
 * A node with none of them runs its one attempt directly (synchronously when it can).
 */
import type { NodeSpec } from "../algo/spec.js";
import type { PreparedTask } from "../algo/tasks.js";
import type { Write } from "../algo/writes.js";
import { cacheKey, nodeNamespace } from "../cache/key.js";
import { addHandler } from "../callbacks/trace.js";
import { NodeError } from "../errors/node.js";
import { forwardAbort } from "../run/abandon.js";
import type { AttemptInfo } from "../run/task-metadata.js";
import { errorFromRecord } from "../thread/pending.js";
import { idleProgressHandler } from "./idle-progress.js";
import type { TaskOutcome } from "./outcome.js";
import { waitToRetry } from "./retry.js";
import { attempt, type ConfigDecorator, type TaskEnv, type TaskMemory } from "./run-task.js";
import { AttemptClock, type TimeoutPolicy } from "./timeout.js";

/** Runs a task under its node's policies. */
export function runTask(
  env: TaskEnv,
  task: PreparedTask,
  memory: TaskMemory | undefined,
): TaskOutcome | Promise<TaskOutcome> {
  const node = env.spec.nodes.get(task.name)!;
  // The node failed and its handler asked: the answer is the handler's, the node does not run again.
  if (memory?.failure && node.errorHandler) return handled(env, node, task, memory, errorFromRecord(memory.failure));
  // A task resumed with answers is not looked up: its result depends on what a person said.
  if (node.cachePolicy && env.cache && !memory) return cached(env, node, task);
  return governed(env, node, task, memory);
}

function governed(
  env: TaskEnv,
  node: NodeSpec,
  task: PreparedTask,
  memory: TaskMemory | undefined,
): TaskOutcome | Promise<TaskOutcome> {
  if (!node.retryPolicy && !node.timeout && !task.timeout && !node.errorHandler)
    return attempt(env, node, task, memory);
  return withPolicies(env, node, task, memory);
}

async function cached(env: TaskEnv, node: NodeSpec, task: PreparedTask): Promise<TaskOutcome> {
  const key = cacheKey(nodeNamespace(node.name), node.cachePolicy!, task.input);
  const [hit] = await env.cache!.get([key]);
  if (hit) return { kind: "done", task, writes: hit.value as Write[], output: undefined, cached: true };
  const outcome = await governed(env, node, task, undefined);
  // A pause, a failure or an error handler's stand-in is not the node's result for this input.
  if (outcome.kind === "done" && !outcome.as)
    await env.cache!.set([{ key, value: outcome.writes, ttl: node.cachePolicy!.ttl }]);
  return outcome;
}

async function withPolicies(
  env: TaskEnv,
  node: NodeSpec,
  task: PreparedTask,
  memory: TaskMemory | undefined,
): Promise<TaskOutcome> {
  const timeout = task.timeout ?? node.timeout;
  const outcome = await withRetries(node.retryPolicy, env.run.signal, (info) =>
    timeout
      ? timedAttempt(env, node, task, memory, info, timeout)
      : attempt(env, node, task, memory, { attempt: info }),
  );
  return outcome.kind === "failed" && node.errorHandler ? handled(env, node, task, memory, outcome.error) : outcome;
}

/** `once` until it does not fail or `policy` gives up (no policy: once). */
async function withRetries(
  policy: NodeSpec["retryPolicy"],
  signal: AbortSignal | undefined,
  once: (info: AttemptInfo) => TaskOutcome | Promise<TaskOutcome>,
): Promise<TaskOutcome> {
  const firstTime = Date.now();
  for (let failures = 1; ; failures++) {
    const outcome = await once({ number: failures, firstTime });
    if (outcome.kind !== "failed" || !(await waitToRetry(policy, failures, outcome.error, signal))) return outcome;
  }
}

/**
 * An attempt raced against the node's clocks. When one runs out, the attempt's signal is
 * aborted and the task fails with NodeTimeoutError; what the abandoned attempt does after
 * (its result, its writer chunks) is dropped.
 */
function timedAttempt(
  env: TaskEnv,
  node: NodeSpec,
  task: PreparedTask,
  memory: TaskMemory | undefined,
  info: AttemptInfo,
  policy: TimeoutPolicy,
): Promise<TaskOutcome> {
  const clock = new AttemptClock(node.name, policy);
  const abort = new AbortController();
  let over = false;
  // Under "auto", what the node does counts as progress: its writer chunks, task() calls,
  // pushed messages and LangChain events (runner/idle-progress.ts); else heartbeats only.
  const auto = policy.refreshOn === "auto" && policy.idleTimeout !== undefined;
  const progress = auto ? () => over || clock.progress() : undefined;
  let release: () => void = () => undefined;
  const decorate: ConfigDecorator = (config) => {
    release = forwardAbort(config.signal as AbortSignal | undefined, abort);
    config.signal = abort.signal;
    config.heartbeat = clock.progress;
    const writer = config.writer as ((chunk: unknown) => void) | undefined;
    if (writer)
      config.writer = (chunk: unknown) => {
        if (over) return;
        progress?.();
        writer(chunk);
      };
    if (progress) config.callbacks = addHandler(config.callbacks, idleProgressHandler(progress));
    return config;
  };
  const expired = () => {
    over = true;
    abort.abort();
  };
  const work = Promise.resolve(attempt(env, node, task, memory, { decorate, attempt: info, progress }));
  return clock
    .race(work, (outcome) => outcome.kind === "done", expired)
    .catch((error: unknown): TaskOutcome => (expired(), { kind: "failed", task, error }))
    .finally(() => release());
}

/**
 * The node's error handler, called with its input and a NodeError. Its writes stand for the
 * node's, without the node's edges (only its `Command({ goto })` routes on), streamed under
 * its name. If it asks a question, the answer goes to the handler again (with the failure as
 * it was stored), not to a new run of the node. The default handler (`setNodeDefaults`) is
 * retried under the graph's default retry policy, as LangGraph.js's.
 */
function handled(
  env: TaskEnv,
  node: NodeSpec,
  task: PreparedTask,
  memory: TaskMemory | undefined,
  error: unknown,
): TaskOutcome | Promise<TaskOutcome> {
  const handler = node.errorHandler!;
  const failure = new NodeError(node.name, error instanceof Error ? error : new Error(String(error)));
  const asHandler: NodeSpec = {
    name: node.name,
    run: (state, config) => handler.run(state, failure, config),
    triggers: node.triggers,
    edges: [],
    branches: [],
  };
  const named = (o: TaskOutcome): TaskOutcome =>
    o.kind === "done" ? { ...o, as: handler.name } : o.kind === "interrupted" ? { ...o, failure: error } : o;
  if (handler.retryPolicy)
    return withRetries(handler.retryPolicy, env.run.signal, () => attempt(env, asHandler, task, memory)).then(named);
  const outcome = attempt(env, asHandler, task, memory);
  return outcome instanceof Promise ? outcome.then(named) : named(outcome);
}
