/**
 * The LISTEN connection's liveness. It sends nothing for as long as nobody watches, and a
 * connection dropped without a word (a NAT or a load balancer forgetting an idle flow, a network
 * partition) would leave its process deaf for good: no error comes until TCP gives up, hours
 * later, and meanwhile the process misses every event of the others (its inbox streams no
 * longer hear of questions asked elsewhere). A `SELECT 1` each period keeps the flow from
 * idling out, and one unanswered for two periods ends the connection, which the bus then opens
 * again and announces (`bus.reconnected`: the inbox streams list again).
 */
/** The shortest period: a busy database may take a while to answer, which is no loss of the connection. */
const MIN_PERIOD_MS = 1_000;

/**
 * Starts checking the connection every `periodMs` (at least a second): `send` a statement on it,
 * `cut` it. The function returned stops.
 */
export function watchLiveness(send: (sql: string) => Promise<unknown>, cut: () => void, periodMs: number): () => void {
  const period = Math.max(periodMs, MIN_PERIOD_MS);
  let unanswered = 0;
  const timer = setInterval(() => {
    if (unanswered >= 2) {
      clearInterval(timer);
      cut();
      return;
    }
    unanswered++;
    send("SELECT 1").then(
      () => (unanswered = 0),
      () => undefined, // the connection failed: its 'error' event reconnects
    );
  }, period);
  timer.unref();
  return () => clearInterval(timer);
}
