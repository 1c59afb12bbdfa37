/** What compile checks of a checkpointer, so that a saver Interlude cannot run on fails there, not at a run. */
import { InvalidCheckpointerError } from "../errors/graph.js";

/** The methods a run calls; LangGraph.js's savers have the first four, not the thread claims. */
const REQUIRED = ["getTuple", "list", "put", "putWrites", "deleteThread", "claimThread", "releaseThread"] as const;

const SAVERS =
  "Use one of Interlude's (MemorySaver from @interlude/core, SqliteSaver from @interlude/checkpoint-sqlite, " +
  "PostgresSaver from @interlude/checkpoint-postgres, RedisSaver from @interlude/checkpoint-redis), " +
  "or extend Interlude's BaseCheckpointSaver and pass the conformance suite (@interlude/checkpoint-conformance).";

export function checkCheckpointer(saver: object): void {
  const name = saver.constructor?.name ?? "the checkpointer";
  const methods = saver as Record<string, unknown>;
  const missing = REQUIRED.filter((method) => typeof methods[method] !== "function");
  if (missing.length > 0)
    throw new InvalidCheckpointerError(
      `${name} is not an Interlude checkpointer: it has no ${missing.join(", ")}. ` +
        `Interlude's savers claim a thread for one run at a time, which LangGraph.js's savers cannot. ${SAVERS}`,
    );
  // Interlude numbers channel versions itself: an override would be ignored, so it is refused.
  if (typeof methods.getNextVersion === "function")
    throw new InvalidCheckpointerError(
      `${name} defines getNextVersion, which Interlude never calls: channel versions are numbered by the run ` +
        `and stored as numbers by every saver. Remove the method.`,
    );
}
