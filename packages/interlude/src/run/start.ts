/**
 * Where a run starts: load the thread's checkpoint (the one asked for, or the newest; through
 * a subgraph's when the caller addressed one), then apply the input, the answers of a
 * `Command({ resume })` or its update, or continue (`invoke(null)`).
 */
import { markInterruptSeen } from "../algo/breakpoints.js";
import { outputWrites } from "../algo/output.js";
import { applyNullWrites, applyWrites, channelsFromCheckpoint, type Write } from "../algo/writes.js";
import { type BaseCheckpointSaver, checkpointIdOf } from "../checkpoint/base.js";
import { readingLangChain } from "../checkpoint/serde-langchain.js";
import type { CheckpointTuple } from "../checkpoint/types.js";
import { START } from "../constants.js";
import { EmptyInputError } from "../errors/graph.js";
import { resolveResume } from "../interrupt/answers.js";
import { type Command, isCommand } from "../primitives/command.js";
import { loadStart } from "../thread/load.js";
import { indexPendingWrites, NO_PENDING } from "../thread/pending.js";
import { emptyCheckpoint, workingCopy } from "../thread/working-checkpoint.js";
import { Persistence } from "./persist.js";
import {
  newestBefore,
  replayBound,
  resolveSubgraphTarget,
  type StartPoint,
  type SubgraphTarget,
  subgraphStart,
} from "./replay.js";

import { type RunResult, RunState } from "./run-state.js";

/** The checkpoint a run starts from, and the id of the thread's newest (the head its first save replaces). */
interface Loaded {
  tuple?: CheckpointTuple;
  head: string | null;
}

export abstract class RunStart extends RunState {
  /** Not an async function where the start is known at once (most runs): awaiting costs promises. */
  protected load(): Promise<Loaded> {
    if (!this.saver) return Promise.resolve({ head: null });
    if (!this.parent && this.subgraphTarget) {
      const saver = this.saver;
      return this.subgraphTargetStart(saver, this.subgraphTarget).then((from) => this.loadFrom(saver, from));
    }
    const from = this.parent
      ? subgraphStart(this.scope, this.ns, this.graph.subgraphCheckpoints === "persistent")
      : this.requestedStart();
    return this.loadFrom(this.saver, from);
  }

  private loadFrom(saver: BaseCheckpointSaver, from: StartPoint | undefined): Promise<Loaded> {
    const threadId = this.threadId as string; // a run with a checkpointer has a thread
    const at = from && "at" in from ? from.at : undefined;
    const loading = loadStart(saver, threadId, this.ns, at, this.saverKeys);
    if (!from || !("before" in from))
      return loading.then(({ latest, tuple }) => ({ tuple, head: latest?.checkpoint.id ?? null }));
    return loading.then(({ latest }) => this.loadBefore(saver, from.before, latest?.checkpoint.id ?? null));
  }

  private async loadBefore(saver: BaseCheckpointSaver, before: string, head: string | null): Promise<Loaded> {
    const threadId = this.threadId as string;
    const base = { ...this.saverKeys, thread_id: threadId, checkpoint_ns: this.ns };
    return { tuple: await readingLangChain(() => newestBefore(saver, base, before)), head };
  }

  /** The checkpoint the caller asked for, if any (not async: most runs ask for none, and awaiting costs promises). */
  protected requestedStart(): StartPoint | undefined {
    const id = checkpointIdOf(this.config);
    return id ? { at: id } : undefined;
  }

  /** The checkpoint the caller asked for through one of a subgraph's. */
  protected async subgraphTargetStart(
    saver: BaseCheckpointSaver,
    subgraphTarget: SubgraphTarget,
  ): Promise<StartPoint | undefined> {
    const target = await resolveSubgraphTarget(saver, this.threadId!, subgraphTarget, this.saverKeys);
    this.scope.replay = target.replay;
    this.events.interruptNs = subgraphTarget.ns;
    this.targetPending = target.pending;
    return target.parentCheckpointId ? { at: target.parentCheckpointId } : undefined;
  }

  protected adopt(tuple: CheckpointTuple | undefined, head: string | null): void {
    this.checkpoint = tuple ? workingCopy(tuple.checkpoint) : emptyCheckpoint();
    this.channels = channelsFromCheckpoint(this.graph.spec, tuple?.checkpoint);
    this.step = this.startStep = tuple ? tuple.metadata.step : -2;
    if (tuple)
      this.at = {
        id: tuple.checkpoint.id,
        parentId: tuple.parentConfig?.configurable?.checkpoint_id as string | undefined,
        metadata: tuple.metadata,
      };
    const origin = this.parent?.origin;
    this.parents = origin ? { ...origin.parents, [origin.ns]: origin.checkpointId } : (tuple?.metadata.parents ?? {});
    this.persistence = new Persistence(
      this.saver,
      this.threadId,
      this.ns,
      this.saverKeys,
      this.scope.durability,
      head,
      tuple?.checkpoint.id,
      this.options.onFinalState !== undefined && !this.parent,
      this.scope.claim,
    );
    if (tuple) {
      this.pending = indexPendingWrites(tuple.pendingWrites);
      this.reuseFinished = tuple.checkpoint.id === head;
    }
  }

  /** Returns a result when the run ends before stepping (a finished subgraph replayed). */
  protected async start(): Promise<RunResult | undefined> {
    const { tuple, head } = await this.load();
    this.adopt(tuple, head);
    if (this.parent) return this.startNested(tuple);
    const requested = this.subgraphTarget !== undefined || checkpointIdOf(this.config) !== undefined;
    const bound = tuple && replayBound(tuple, requested, this.input, this.reuseFinished);
    if (bound) this.scope.replayBefore = { checkpointId: bound, taken: new Set() };
    if (isCommand(this.input)) {
      await this.startCommand(this.input, tuple);
      this.emitResumedValues();
      return undefined;
    }
    if (this.input === null || this.input === undefined) {
      if (!tuple)
        throw new EmptyInputError(
          `Thread "${this.threadId ?? "(none)"}" has no checkpoint to continue from. Start it with an input: invoke({ ... }, config).`,
        );
      // Replaying an older checkpoint starts a new branch, as in LangGraph.js: a "fork" copy of
      // it becomes the thread's newest checkpoint, so that even a step that pauses at once
      // leaves the thread on the new branch.
      if (!this.reuseFinished) await this.commit("fork");
      this.resuming = true;
      this.beginResume();
      this.emitResumedValues();
      return undefined;
    }
    await this.startInput(this.input, tuple !== undefined);
    return undefined;
  }

  protected async startNested(tuple: CheckpointTuple | undefined): Promise<RunResult | undefined> {
    if (tuple) {
      const tasks = this.nextTasks();
      // The parent node runs again (it was resumed): the subgraph continues where it stopped,
      // and a subgraph that had finished is not run again. A persistent subgraph (one history
      // across the parent's runs) that finished takes a new run's input on top of its state.
      if (tasks.length > 0) {
        // Replaying an older checkpoint forks it; answering its questions continues it.
        if (!this.reuseFinished && this.scope.answers.size === 0) await this.commit("fork");
        this.resuming = true;
        this.beginResume();
        this.emitResumedValues();
        return undefined;
      }
      if (this.graph.subgraphCheckpoints !== "persistent" || this.parent!.resuming) {
        // Its values stand as told, as a resumed run's do.
        this.valuesTold = true;
        return { values: this.values(), interrupts: [], paused: false };
      }
    }
    await this.startInput(this.input, tuple !== undefined);
    return undefined;
  }

  /**
   * A Command with an answer continues the paused step; its update stays pending with the
   * paused checkpoint until a step completes. A Command without one (an update, a goto) starts
   * a new step: it is saved as an "input" checkpoint, so that an interrupt it leads to is
   * saved against it and past a static breakpoint the thread was paused at.
   */
  protected async startCommand(command: Command, tuple: CheckpointTuple | undefined): Promise<void> {
    if (command.resume !== undefined) {
      const tasks = tuple ? this.nextTasks() : [];
      const pending = this.targetPending ?? this.pendingInterrupts(tasks);
      const reason = !tuple ? "unknown_thread" : tasks.length === 0 ? "finished" : "breakpoint";
      const resolved = resolveResume(this.threadId ?? "", pending, command, reason, this.graph.positional);
      this.scope.answers = resolved.answers;
      this.resumeRecord = resolved.record;
      // As LangGraph: a null answer does not count as resuming.
      this.resuming = command.resume !== null;
    } else if (!tuple) {
      throw new EmptyInputError(
        `Thread "${this.threadId ?? "(none)"}" has never run, so a Command without resume has nothing to act on. Start it with an input.`,
      );
    }
    const writes = outputWrites(this.graph.spec, "Command", command);
    this.beginResume(writes);
    if (command.resume !== undefined) this.commandWrites = writes;
    else if (writes.length) await this.commit("input");
  }

  /** A resumed run streams the state it continues from first, as LangGraph.js does. */
  protected emitResumedValues(): void {
    // Held until the run says something else: a refused answer streams nothing.
    this.valuesTold = true;
    this.events.hold("values", () => this.output());
  }

  /** Applies updates waiting with the checkpoint and those sent now, then passes its breakpoint. */
  protected beginResume(writes: readonly Write[] = []): void {
    if (this.reuseFinished && this.pending.nullWrites.length) {
      this.track(applyNullWrites(this.checkpoint, this.channels, this.pending.nullWrites));
    }
    if (writes.length) this.track(applyNullWrites(this.checkpoint, this.channels, writes));
    markInterruptSeen(this.checkpoint);
  }

  /** Saves the input checkpoint: the input waits in the `__start__` channel (or a low-level graph's input channels) for the first step. */
  protected async startInput(input: unknown, hadCheckpoint: boolean): Promise<void> {
    if (!hadCheckpoint) this.checkpoint = emptyCheckpoint();
    else this.discardPendingTasks();
    const writes: readonly Write[] = this.graph.spec.inputWrites?.(input) ?? [[START, input]];
    this.track(applyNullWrites(this.checkpoint, this.channels, writes));
    this.pending = NO_PENDING;
    this.reuseFinished = false;
    // The input task's checkpoint is saved next, before any node runs: one commit for both.
    await this.commit("input", undefined, true);
  }

  /**
   * New input on a thread that stopped mid-way (a failed or paused node): the tasks that were
   * next are dropped, as in LangGraph, and the graph runs from the input.
   */
  protected discardPendingTasks(): void {
    const tasks = this.nextTasks();
    if (tasks.length === 0) return;
    const dropped = tasks.map((task) => ({ name: task.name, triggers: task.triggers, writes: [] }));
    this.track(applyWrites(this.graph.spec, this.checkpoint, this.channels, dropped));
  }
}
