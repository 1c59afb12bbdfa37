import {
  type BaseCheckpointSaver,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointMetadata,
  type CheckpointTuple,
  newCheckpointId,
  type PutOptions,
  type RunnableConfig,
} from "@interlude/core";

let threadCounter = 0;
/** Unique per test run, so savers on shared storage never see another test's threads. */
export function freshThreadId(label = "t"): string {
  return `${label}-${process.pid}-${Date.now().toString(36)}-${threadCounter++}`;
}

/**
 * Writes a thread the way the run loop does: each step changes some channels, bumps their
 * versions and puts a checkpoint that stores only those channels.
 */
export class ThreadWriter {
  values: Record<string, unknown> = {};
  versions: ChannelVersions = {};
  config: RunnableConfig;
  step = -1;
  private nextVersion = 1;

  constructor(
    private readonly saver: BaseCheckpointSaver,
    readonly threadId = freshThreadId(),
    readonly ns = "",
  ) {
    this.config = { configurable: { thread_id: threadId, checkpoint_ns: ns } };
  }

  get head(): string | undefined {
    return this.config.configurable?.checkpoint_id;
  }

  /** The same thread's writer, continuing from where this one is, writing through another saver (another process's). */
  through(saver: BaseCheckpointSaver): ThreadWriter {
    const next = new ThreadWriter(saver, this.threadId, this.ns);
    next.values = { ...this.values };
    next.versions = { ...this.versions };
    next.config = this.config;
    next.step = this.step;
    next.nextVersion = this.nextVersion;
    return next;
  }

  async write(
    updates: Record<string, unknown>,
    metadata: Partial<CheckpointMetadata> = {},
    options?: PutOptions & { ts?: string },
  ): Promise<RunnableConfig> {
    const newVersions: ChannelVersions = {};
    for (const [channel, value] of Object.entries(updates)) {
      this.values[channel] = value;
      this.versions[channel] = this.nextVersion;
      newVersions[channel] = this.nextVersion;
    }
    this.nextVersion++;
    // As the run loop does: only the changed channels' values; the saver keeps the others.
    const checkpoint = makeCheckpoint(updates, this.versions, options?.ts);
    const meta: CheckpointMetadata = {
      source: this.step < 0 ? "input" : "loop",
      step: this.step,
      parents: {},
      ...metadata,
    };
    this.config = await this.saver.put(this.config, checkpoint, meta, newVersions, options);
    this.step++;
    return this.config;
  }
}

export function makeCheckpoint(
  values: Record<string, unknown>,
  versions: ChannelVersions,
  ts = new Date().toISOString(),
): Checkpoint {
  return {
    v: 1,
    id: newCheckpointId(),
    ts,
    channel_values: { ...values },
    channel_versions: { ...versions },
    versions_seen: { node: { ...versions } },
  };
}

export async function collect(iterator: AsyncGenerator<CheckpointTuple>): Promise<CheckpointTuple[]> {
  const out: CheckpointTuple[] = [];
  for await (const tuple of iterator) out.push(tuple);
  return out;
}

export function idsOf(tuples: CheckpointTuple[]): string[] {
  return tuples.map((tuple) => tuple.checkpoint.id);
}

/**
 * Resolves once `happened()` is true: for what storage decides by its own clock (a claim lapsing,
 * a thread expiring), which no event announces. Checks again every few ms, up to `timeoutMs`.
 */
export async function eventually(happened: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const giveUpAt = Date.now() + timeoutMs;
  while (!(await happened())) {
    if (Date.now() > giveUpAt) throw new Error(`still not so after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A registered class for the value zoo. */
export class Money {
  constructor(
    readonly amount: bigint,
    readonly currency: string,
  ) {}
  format(): string {
    return `${this.amount} ${this.currency}`;
  }
}
