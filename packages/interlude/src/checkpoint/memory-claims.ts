import type { ThreadClaim } from "./types.js";

/** Thread claims held in this process only (what `MemorySaver` offers: one process, one owner). */
export class MemoryClaims {
  private readonly claims = new Map<string, { owner: string; expiresAt: number }>();

  constructor(private readonly now: () => number) {}

  claim(threadId: string, claim: ThreadClaim): boolean {
    const now = this.now();
    const held = this.claims.get(threadId);
    if (held && held.owner !== claim.owner && held.expiresAt > now) return false;
    this.claims.set(threadId, { owner: claim.owner, expiresAt: now + claim.ttlMs });
    return true;
  }

  release(threadId: string, owner: string): void {
    if (this.claims.get(threadId)?.owner === owner) this.claims.delete(threadId);
  }

  /** Drops lapsed claims so the map does not grow with every thread ever run. */
  sweep(): void {
    const now = this.now();
    for (const [threadId, held] of this.claims) if (held.expiresAt <= now) this.claims.delete(threadId);
  }
}
