/**
 * `updateState`: write to a thread as if a node had returned `values`, creating a new
 * checkpoint (a fork when the config names an older one). The original history is unchanged.
 */
import { branchWrites, edgeWrites, outputWrites, stateAfterWrites } from "../algo/output.js";
import { readState } from "../algo/tasks.js";
import { applyNullWrites, applyWrites, channelsFromCheckpoint } from "../algo/writes.js";
import type { BaseCheckpointSaver } from "../checkpoint/base.js";
import type { ChannelVersions, Checkpoint, CheckpointMetadata, RunnableConfig } from "../checkpoint/types.js";
import { END, INTERRUPT, START } from "../constants.js";
import { CheckpointNotFoundError, GraphValidationError, MissingThreadIdError } from "../errors/graph.js";
import { withThreadClaim } from "./claim.js";
import type { GraphInternals } from "./graph-internals.js";
import { DEFAULT_CLAIM_TTL_MS } from "./graph-internals.js";
import { indexPendingWrites } from "./pending.js";
import { checkpointToSave, emptyCheckpoint, workingCopy } from "./working-checkpoint.js";

/** The node that wrote last, which an update without `asNode` is attributed to. */
function lastWriter(checkpoint: Checkpoint, graph: GraphInternals): string {
  let best: string | undefined;
  let bestVersion = -1;
  let tie = false;
  for (const [node, seen] of Object.entries(checkpoint.versions_seen)) {
    if (node === INTERRUPT || !graph.spec.nodes.has(node)) continue;
    const version = Math.max(0, ...Object.values(seen));
    if (version > bestVersion) {
      best = node;
      bestVersion = version;
      tie = false;
    } else if (version === bestVersion) tie = true;
  }
  if (!best) return START;
  if (tie)
    throw new GraphValidationError(
      `Several nodes ran last on this thread, so the update cannot be attributed; pass asNode to updateState.`,
    );
  return best;
}

export async function updateThreadState(
  graph: GraphInternals,
  saver: BaseCheckpointSaver,
  config: RunnableConfig,
  values: unknown,
  asNode?: string,
): Promise<RunnableConfig> {
  const threadId = config.configurable?.thread_id;
  if (threadId === undefined || threadId === null) throw new MissingThreadIdError();
  const ns = (config.configurable?.checkpoint_ns as string | undefined) ?? "";
  const base = { thread_id: String(threadId), checkpoint_ns: ns };
  return withThreadClaim(saver, String(threadId), DEFAULT_CLAIM_TTL_MS, async () => {
    const latest = await saver.getTuple({ configurable: base });
    const wanted = config.configurable?.checkpoint_id as string | undefined;
    const tuple = wanted ? await saver.getTuple({ configurable: { ...base, checkpoint_id: wanted } }) : latest;
    if (wanted && !tuple) throw new CheckpointNotFoundError(String(threadId), wanted);

    const spec = graph.spec;
    const saved = tuple?.checkpoint;
    const checkpoint = saved ? workingCopy(saved) : emptyCheckpoint();
    const channels = channelsFromCheckpoint(spec, saved);
    const pending = indexPendingWrites(tuple?.pendingWrites);
    // The update sent with an answer, pending on the source checkpoint, becomes part of the new one.
    const changed = pending.nullWrites.length
      ? applyNullWrites(checkpoint, channels, pending.nullWrites)
      : new Set<string>();

    const node = asNode ?? (saved ? lastWriter(checkpoint, graph) : START);
    if (node !== END && !spec.nodes.has(node)) {
      throw new GraphValidationError(
        `updateState asNode "${node}" is not a node of this graph. Nodes: ${[...spec.nodes.keys()].join(", ")}.`,
        node,
      );
    }
    const writes = outputWrites(spec, node, values);
    const writer = node === END ? { edges: [], branches: [] } : spec.nodes.get(node)!;
    edgeWrites(writer.edges, writes);
    if (writer.branches.length)
      await branchWrites(
        spec,
        node,
        writer.branches,
        stateAfterWrites(spec, readState(channels, spec.stateKeys), writes),
        config,
        writes,
      );
    const triggers =
      node === START || node === END
        ? []
        : spec.nodes.get(node)!.triggers.filter((c) => channels.get(c)!.isAvailable());
    for (const channel of applyWrites(spec, checkpoint, channels, [{ name: node, triggers, writes }]))
      changed.add(channel);

    const next = checkpointToSave(checkpoint, channels, changed);
    const newVersions: ChannelVersions = {};
    for (const channel of changed)
      if (next.channel_versions[channel] !== undefined) newVersions[channel] = next.channel_versions[channel]!;
    // The caller's config.metadata goes along (as in LangGraph): who made the edit, for instance.
    const extra = config.metadata;
    const metadata: CheckpointMetadata = {
      ...(typeof extra === "object" && extra !== null ? (extra as Record<string, unknown>) : {}),
      source: "update",
      step: (tuple?.metadata.step ?? -2) + 1,
      parents: tuple?.metadata.parents ?? {},
      writes: { [node]: values },
    };
    return await saver.put({ configurable: { ...base, checkpoint_id: saved?.id } }, next, metadata, newVersions, {
      expectedHead: latest?.checkpoint.id ?? null,
    });
  });
}
