/**
 * Which stored version an append is written against (delta.ts), chosen from the chain of bases
 * a read of the list's current version follows.
 *
 * Lengths, not counts of writes, pick the base: a segment of level j starts where the list's
 * length last crossed a multiple of fanout^j. Every stored delta says how many items it adds,
 * so a process that reads a list another one wrote knows that list's chain exactly, and goes
 * on with it as the writer would have. A count of writes lives only in the writer's memory: with
 * it, two servers taking turns on a thread each wrote a full copy of the list at every step
 * (a 300-step thread: 9.6 MB instead of 64 kB).
 */
import type { ChannelVersion } from "./types.js";

/** A stored version of a list, and how many items the list holds there. */
export interface ChainLink {
  version: ChannelVersion;
  length: number;
}

/**
 * Longest chain (links from the full copy) an append extends; beyond it the next write is a full
 * copy. Chains this module builds stay far below it (at most fanout - 1 links per level); one read
 * back may not, if an earlier package chose its bases otherwise.
 */
const MAX_LINKS = 128;

/** The highest level (0: none) at which `from` and `to` items lie in different blocks of fanout^level items. */
function carryLevel(from: number, to: number, fanout: number): number {
  let level = 0;
  for (let span = fanout; Math.floor(from / span) !== Math.floor(to / span); span *= fanout) level++;
  return level;
}

/** The level of the block `chain[at]` started: how far its length is from its base's (the root: every level). */
function levelOf(chain: readonly ChainLink[], at: number, fanout: number): number {
  return at === 0 ? Number.POSITIVE_INFINITY : carryLevel(chain[at - 1]!.length, chain[at]!.length, fanout);
}

/**
 * The index in `chain` (root first) of the base for the list grown to `length` items; -1 when
 * it should be a full copy. The last link, unless the growth crosses a block of fanout^j items:
 * then the newest link that itself started a block of that level or higher, so each item is
 * written about 1 + log_fanout(length) times and a read follows at most fanout - 1 links per
 * level. Links that add nothing (a list written again with the same items) cross no block: after
 * fanout - 1 of them the next one is based where they began, as a crossing would be.
 */
export function baseIndex(chain: readonly ChainLink[], length: number, fanout: number): number {
  if (chain.length >= MAX_LINKS) return -1;
  const last = chain.length - 1;
  const level = carryLevel(chain[last]!.length, length, fanout);
  let at = last;
  while (at > 0 && levelOf(chain, at, fanout) < Math.max(level, 1)) at--;
  if (level > 0) return at;
  return last - at < fanout - 1 ? last : at;
}

/** The chain of a version written against `chain[baseIndex]`. */
export function extendChain(chain: readonly ChainLink[], baseAt: number, link: ChainLink): ChainLink[] {
  const next = chain.slice(0, baseAt + 1);
  next.push(link);
  return next;
}

/** Whether a chain read back is one an append may extend. */
export function extendable(chain: readonly ChainLink[]): boolean {
  return chain.length > 0 && chain.length < MAX_LINKS;
}
