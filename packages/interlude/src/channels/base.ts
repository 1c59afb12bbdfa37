/**
 * A channel holds one piece of run state between super-steps. All channels share five verbs:
 * `update` applies one step's writes, `get` reads, `checkpoint` gives the value to store,
 * `fromCheckpoint` rebuilds from it, `isAvailable` says whether there is a value.
 * `consume` is called once the tasks a channel triggered have run.
 */
export interface Channel<Value = unknown, Update = unknown> {
  /** Applies all writes of one step at once. Returns true when the value changed. */
  update(values: Update[]): boolean;
  get(): Value;
  isAvailable(): boolean;
  checkpoint(): unknown;
  fromCheckpoint(saved: unknown): Channel<Value, Update>;
  /** Marks the value as used by the tasks it triggered. Returns true when that changed it. */
  consume(): boolean;
}

/**
 * The base of a channel class of your own (LangGraph.js's `BaseChannel`): give `update`, `get`,
 * `checkpoint` and `fromCheckpoint`; `get` throws `EmptyChannelError` while there is no value.
 * Its instances go in a low-level graph's `channels` or as keys of `Annotation.Root`.
 */
export abstract class BaseChannel<Value = unknown, Update = unknown, Saved = unknown>
  implements Channel<Value, Update>
{
  readonly lg_is_channel = true;
  /** The class's name as LangGraph.js gives it (each channel class sets its own). */
  readonly lc_graph_name: string = "BaseChannel";
  abstract fromCheckpoint(saved?: Saved): Channel<Value, Update>;
  abstract update(values: Update[]): boolean;
  abstract get(): Value;
  abstract checkpoint(): Saved | undefined;

  /** Whether `other` is the same channel (subclasses with settings compare them). */
  equals(other: unknown): boolean {
    return this === other;
  }

  consume(): boolean {
    return false;
  }

  finish(): boolean {
    return false;
  }

  isAvailable(): boolean {
    try {
      this.get();
      return true;
    } catch (error) {
      if ((error as Error | null)?.name === "EmptyChannelError") return false;
      throw error;
    }
  }
}
