import { ThreadClaimLostError } from "@interlude/core";

/**
 * The thread claims this saver took, which fence their threads' writes: a run whose claim lapsed
 * (its process paused past the TTL) and was taken by another process sharing the file stores
 * nothing more. The check runs inside the write's transaction, which holds the file's write lock,
 * so no claim changes hands between the check and the write. It reads the claim only once the
 * one this saver took may have lapsed: until its expiry nobody else can take it.
 */
export class HeldClaims {
  private readonly byThread = new Map<string, { owner: string; expiresAt: number }>();

  taken(threadId: string, owner: string, expiresAt: number): void {
    this.byThread.set(threadId, { owner, expiresAt });
  }

  released(threadId: string, owner: string): void {
    if (this.byThread.get(threadId)?.owner === owner) this.byThread.delete(threadId);
  }

  /**
   * In a write's transaction: throws ThreadClaimLostError when the claim this saver took on
   * `threadId` lapsed and another owner holds it now (`holder` reads it from the file).
   */
  check(threadId: string, now: number, holder: () => string | undefined): void {
    const held = this.byThread.get(threadId);
    if (held === undefined || now < held.expiresAt) return;
    const owner = holder();
    if (owner !== undefined && owner !== held.owner) throw new ThreadClaimLostError(threadId);
  }
}
