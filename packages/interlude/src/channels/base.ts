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
