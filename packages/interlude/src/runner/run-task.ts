/**
 * One attempt of a task: the node's function inside its task scope, then its edges and
 * branches. Interrupts, refused answers and failures are turned into a `TaskOutcome`; what
 * the node's options add around attempts (retries, timeouts, an error handler, a cache) is
 * in policies.ts.
 */
import { branchWrites, edgeWrites, outputWrites, stateAfterWrites } from "../algo/output.js";
import type { BranchSpec, GraphSpec, NodeSpec } from "../algo/spec.js";
import type { PreparedTask } from "../algo/tasks.js";
import type { Write } from "../algo/writes.js";
import type { BaseCache } from "../cache/base.js";
import type { ChainRun } from "../callbacks/trace.js";
import { InterruptMismatchError, InvalidResumeError } from "../errors/resume.js";
import type { GivenAnswer, TaskCallRecord } from "../interrupt/record.js";
import { GraphInterrupt, isGraphDrained, isGraphInterrupt, ParentCommand } from "../interrupt/signal.js";
import { Command, isCommand } from "../primitives/command.js";
import type { AttemptInfo } from "../run/task-metadata.js";
import type { TaskOutcome } from "./outcome.js";
import { type RunScope, type StepOrigin, type TaskScope, taskStorage } from "./scope.js";

/** What earlier attempts of this task left: answers given and `task()` results. */
export interface TaskMemory {
  answers: readonly GivenAnswer[];
  taskCalls: readonly TaskCallRecord[];
  /** The node failed and its error handler asked a question: the failure it was handling. */
  failure?: { name: string; message: string };
}

export interface TaskEnv {
  spec: GraphSpec;
  run: RunScope;
  /** Config passed to the node (its `configurable` carries thread and namespace). */
  config: (task: PreparedTask, attempt?: AttemptInfo) => Record<string, unknown>;
  /** Persists `task()` results of a task as soon as they exist. */
  saveTaskCalls: (task: PreparedTask, calls: TaskCallRecord[]) => Promise<void>;
  origin: StepOrigin;
  /** Set when the run has LangChain callbacks: opens the task's chain run (see callbacks/trace.ts). */
  trace?: (task: PreparedTask, config: Record<string, unknown>) => Promise<ChainRun>;
  /** The graph's cache of node results (`compile({ cache })`), for nodes and `task()`s with a cache policy. */
  cache?: BaseCache;
  /** With `trace`: opens the chain run of a `task()` call made by the node. */
  traceCall?: (
    task: PreparedTask,
    config: Record<string, unknown>,
    name: string,
    index: number,
    input: unknown,
  ) => Promise<ChainRun>;
}

/** Shared by every task without answers (most of them): a scope only reads its answer maps. */
const NO_INDEXED_ANSWERS: ReadonlyMap<number, GivenAnswer> = new Map();
const NO_KEYED_ANSWERS: ReadonlyMap<string, GivenAnswer> = new Map();

function newScope(
  env: TaskEnv,
  task: PreparedTask,
  memory: TaskMemory | undefined,
  config: Record<string, unknown>,
): TaskScope {
  let byIndex = NO_INDEXED_ANSWERS;
  let byKey = NO_KEYED_ANSWERS;
  if (memory?.answers.length) {
    const index = new Map<number, GivenAnswer>();
    const key = new Map<string, GivenAnswer>();
    for (const answer of memory.answers) {
      if (answer.key !== undefined) key.set(answer.key, answer);
      else if (answer.index !== undefined) index.set(answer.index, answer);
    }
    byIndex = index;
    byKey = key;
  }
  const taskCalls = memory ? [...memory.taskCalls] : [];
  return {
    taskId: task.id,
    node: task.name,
    config,
    input: task.input,
    ns: task.ns,
    run: env.run,
    byIndex,
    byKey,
    used: [],
    interruptCounter: 0,
    taskCalls,
    taskCallCounter: 0,
    saveTaskCalls: () => env.saveTaskCalls(task, taskCalls),
    subgraphCounter: 0,
    resuming: memory !== undefined,
    origin: env.origin,
    cache: env.cache,
  };
}

/** The task's writes; synchronous unless a branch function returns a promise (a step saves a turn). */
function finish(
  env: TaskEnv,
  node: NodeSpec,
  task: PreparedTask,
  output: unknown,
  config: Record<string, unknown>,
  pushed: Write[] | undefined,
  branches: readonly BranchSpec[],
): TaskOutcome | Promise<TaskOutcome> {
  const parent = parentCommandOf(output);
  if (parent) return { kind: "parent", task, command: parent };
  const returned = outputWrites(env.spec, node.name, output);
  const writes: Write[] = pushed ? [...pushed, ...returned] : returned;
  edgeWrites(node.edges, writes);
  const done: TaskOutcome = { kind: "done", task, writes, output };
  if (!branches.length) return done;
  // As LangGraph: the graph's state with the task's own writes, a Send's task's too.
  const state = stateAfterWrites(env.spec, task.state ?? (task.input as Record<string, unknown>), writes);
  const branched = branchWrites(env.spec, node.name, branches, state, config, writes);
  return branched ? branched.then(() => done) : done;
}

/** A Command for the parent graph, returned alone or in a list (a ToolNode's, for a handoff). */
function parentCommandOf(output: unknown): Command | undefined {
  if (isCommand(output)) return output.graph === Command.PARENT ? output : undefined;
  if (Array.isArray(output)) return output.find((item) => isCommand(item) && item.graph === Command.PARENT);
  return undefined;
}

function callTracer(env: TaskEnv, task: PreparedTask, config: Record<string, unknown>): TaskScope["traceCall"] {
  return async (name, index, input, body) => {
    const chain = await env.traceCall!(task, config, name, index, input);
    let value: Awaited<ReturnType<typeof body>>;
    try {
      value = await chain.within(body);
    } catch (error) {
      await chain.fail(error);
      throw error;
    }
    await chain.end(value);
    return value;
  };
}

/**
 * The node's branches as LangGraph traces them, inside the node's run: a function in a
 * `RunnableLambda` run of its own (a chat model it calls without a config reports there); a
 * Runnable path reports its own run.
 */
function tracedBranches(branches: readonly BranchSpec[], trace: ChainRun): readonly BranchSpec[] {
  return branches.map((branch) =>
    branch.runnable ? branch : { ...branch, path: (state: unknown) => inLambdaRun(trace, branch, state) },
  );
}

async function inLambdaRun(trace: ChainRun, branch: BranchSpec, state: unknown): Promise<unknown> {
  const run = await trace.child("RunnableLambda", state);
  let result: unknown;
  try {
    result = await run.within(() => branch.path(state, run.config));
  } catch (error) {
    await run.fail(error);
    throw error;
  }
  await run.end(result);
  return result;
}

function isResumeRejection(error: unknown): boolean {
  return error instanceof InterruptMismatchError || error instanceof InvalidResumeError;
}

function asLocalCommand(command: Command): Command {
  return new Command({ update: command.update as never, goto: command.goto });
}

/** Every answer the task has so far: those used in this attempt, and those not reached yet. */
function keptAnswers(memory: TaskMemory | undefined, used: readonly GivenAnswer[]): GivenAnswer[] {
  const usedIds = new Set(used.map((a) => a.id));
  return [...(memory?.answers ?? []).filter((a) => !usedIds.has(a.id)), ...used];
}

function interrupted(
  task: PreparedTask,
  scope: TaskScope,
  memory: TaskMemory | undefined,
  interrupts = scope.raised!,
): Extract<TaskOutcome, { kind: "interrupted" }> {
  return {
    kind: "interrupted",
    task,
    interrupts,
    answers: keptAnswers(memory, scope.used),
    taskCalls: scope.taskCalls,
  };
}

/** What an attempt needs after the node returned or threw. */
interface Attempt {
  env: TaskEnv;
  node: NodeSpec;
  task: PreparedTask;
  memory: TaskMemory | undefined;
  scope: TaskScope;
  config: Record<string, unknown>;
}

/** Adds to a node's config what its attempt needs (a timeout's signal and heartbeat). */
export type ConfigDecorator = (config: Record<string, unknown>) => Record<string, unknown>;

/** What a node's policies tell one attempt: which one it is, and what its config needs. */
export interface AttemptOptions {
  decorate?: ConfigDecorator;
  attempt?: AttemptInfo;
  /** Told when the node makes progress its idle clock counts (task() calls, pushed messages). */
  progress?: () => void;
}

/**
 * One run of the node. Synchronous when the node is (and its branches): the step then goes on
 * without a turn of the event loop per task, which with AsyncLocalStorage active costs a
 * promise hook each.
 */
export function attempt(
  env: TaskEnv,
  node: NodeSpec,
  task: PreparedTask,
  memory: TaskMemory | undefined,
  options: AttemptOptions = {},
): TaskOutcome | Promise<TaskOutcome> {
  if (env.trace) return tracedAttempt(env, node, task, memory, options);
  const { decorate } = options;
  const config = decorate ? decorate(env.config(task, options.attempt)) : env.config(task, options.attempt);
  const scope = newScope(env, task, memory, config);
  if (options.progress) scope.progress = options.progress;
  const at: Attempt = { env, node, task, memory, scope, config };
  let output: unknown;
  try {
    output = taskStorage.run(scope, () => node.run(task.input, config));
  } catch (error) {
    return afterThrow(at, error);
  }
  if (output !== null && typeof (output as Promise<unknown>)?.then === "function")
    return Promise.resolve(output).then(
      (value) => afterReturn(at, value),
      (error: unknown) => afterThrow(at, error),
    );
  return afterReturn(at, output);
}

async function tracedAttempt(
  env: TaskEnv,
  node: NodeSpec,
  task: PreparedTask,
  memory: TaskMemory | undefined,
  { decorate, attempt, progress }: AttemptOptions,
): Promise<TaskOutcome> {
  const trace = await env.trace!(task, env.config(task, attempt));
  const config = decorate ? decorate(trace.config) : trace.config;
  const scope = newScope(env, task, memory, config);
  if (progress) scope.progress = progress;
  if (env.traceCall) scope.traceCall = callTracer(env, task, config);
  const at: Attempt = { env, node, task, memory, scope, config };
  let output: unknown;
  try {
    output = await taskStorage.run(scope, () => trace.within(() => node.run(task.input, config)));
  } catch (error) {
    await (error instanceof ParentCommand ? trace.end(error.command) : trace.fail(error));
    return afterThrow(at, error);
  }
  // A node that paused or had its answer refused did not finish: its chain run ends in error.
  const stopped = scope.rejection ?? (scope.raised && new GraphInterrupt(scope.raised));
  if (stopped) {
    await trace.fail(stopped);
    return afterReturn(at, output);
  }
  const branches = node.branches.length ? tracedBranches(node.branches, trace) : node.branches;
  const outcome = await afterReturn(at, output, branches);
  await (outcome.kind === "failed" ? trace.fail(outcome.error) : trace.end(output));
  return outcome;
}

function afterThrow(at: Attempt, error: unknown): TaskOutcome | Promise<TaskOutcome> {
  const { task, scope, memory } = at;
  if (scope.rejection) return { kind: "rejected", task, error: scope.rejection };
  // A subgraph run by this task refused an answer: the whole run is refused.
  if (isResumeRejection(error)) return { kind: "rejected", task, error: error as Error };
  if (isGraphInterrupt(error)) return interrupted(task, scope, memory, error.interrupts);
  if (isGraphDrained(error)) return { ...interrupted(task, scope, memory, []), drained: error.reason };
  if (scope.raised) return interrupted(task, scope, memory);
  // A subgraph run by this task routed in its parent, which is this graph.
  if (error instanceof ParentCommand) return afterReturn(at, asLocalCommand(error.command as Command));
  return { kind: "failed", task, error };
}

function afterReturn(at: Attempt, output: unknown, branches = at.node.branches): TaskOutcome | Promise<TaskOutcome> {
  const { task, scope, memory } = at;
  if (scope.rejection) return { kind: "rejected", task, error: scope.rejection };
  // The node caught the interrupt and returned normally: the question still stands.
  if (scope.raised) return interrupted(task, scope, memory);
  const failed = (error: unknown): TaskOutcome => {
    if (!isGraphInterrupt(error)) return { kind: "failed", task, error };
    // A conditional edge that pauses: as LangGraph.js, a warning, and the task pauses (its
    // writes wait with it, so they apply once, when it runs again).
    console.warn(
      "[WARN]: 'NodeInterrupt' thrown in a conditional edge. This is likely a bug in your graph: " +
        "throw NodeInterrupt (or call interrupt()) inside a node, not in an edge's condition.",
    );
    return interrupted(task, scope, memory, error.interrupts);
  };
  try {
    const outcome = finish(at.env, at.node, task, output, at.config, scope.pushed, branches);
    return outcome instanceof Promise ? outcome.catch(failed) : outcome;
  } catch (error) {
    return failed(error);
  }
}
