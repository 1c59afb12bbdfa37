import type { BaseCheckpointSaver } from "@interlude/core";

/** Options the suite asks a saver factory for (retention tests). */
export interface ConformanceSaverOptions {
  ttlMs?: number;
}

export interface SaverHarness {
  saver: BaseCheckpointSaver;
  /** Another saver on the same storage (another connection or process view): used for races and cold reads. */
  makeSecondSaver?: () => Promise<BaseCheckpointSaver>;
  /** Makes the storage fail (read-only, disconnected); `restore` undoes it. Enables the StorageError test. */
  breakStorage?: () => Promise<{ restore(): Promise<void> }>;
  close(): Promise<void>;
}

export type MakeSaver = (options?: ConformanceSaverOptions) => Promise<SaverHarness>;
