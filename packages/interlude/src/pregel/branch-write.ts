/**
 * A conditional edge of a non-state `Graph`: a writer that asks its path where the node's
 * output goes, and writes it to those nodes' branch channels (or END, or as `Send`s).
 */
import type { Write } from "../algo/writes.js";
import { END } from "../constants.js";
import { InvalidUpdateError } from "../errors/graph.js";
import { isSend } from "../primitives/send.js";
import { ChannelWrite, PASSTHROUGH, type WriteTarget } from "./channel-write.js";

/** The channel a branch of `source` writes to reach `target` (END is reached through END's own). */
export function branchChannel(source: string, target: string): string {
  return target === END ? END : `branch:${source}:condition:${target}`;
}

export class BranchWrite extends ChannelWrite {
  constructor(
    private readonly source: string,
    private readonly path: (value: unknown, config: unknown) => unknown,
    private readonly pathMap: Readonly<Record<string, string>> | undefined,
    /** Every node the branch may lead to. */
    readonly targets: readonly string[],
  ) {
    super(targets.map((target) => ({ channel: branchChannel(source, target), value: PASSTHROUGH })));
  }

  override writesFor(input: unknown, config?: unknown): Write[] | Promise<Write[]> {
    const result = this.path(input, config);
    return result instanceof Promise
      ? result.then((chosen) => this.writesOf(chosen, input, config))
      : this.writesOf(result, input, config);
  }

  private writesOf(result: unknown, input: unknown, config: unknown): Write[] | Promise<Write[]> {
    const entries: WriteTarget[] = [];
    for (const chosen of Array.isArray(result) ? result : [result]) {
      if (isSend(chosen)) {
        entries.push(chosen);
        continue;
      }
      const target = this.pathMap ? this.pathMap[String(chosen)] : (chosen as string);
      if (typeof target !== "string" || !this.targets.includes(target))
        throw new InvalidUpdateError(
          `The conditional edge from "${this.source}" chose ${JSON.stringify(chosen)}, which is not one of its targets (${this.targets.join(", ")}).`,
        );
      entries.push({ channel: branchChannel(this.source, target), value: PASSTHROUGH });
    }
    return new ChannelWrite(entries).writesFor(input, config);
  }
}
