/**
 * A pending question for a human, as callers see it (`result.__interrupt__`,
 * `snapshot.interrupts`). Plain data: it is stored and sent over the wire as-is.
 */
export interface Interrupt<Value = any> {
  /** Stable id; answer with `new Command({ resume: { [id]: answer } })`. */
  id: string;
  value: Value;
  /** The key given with `interrupt(value, { key })`, when there is one. */
  key?: string;
  /** JSON Schema of the expected answer, when the interrupt declared a `responseSchema` that can describe itself. */
  responseSchema?: Record<string, unknown>;
  /**
   * Namespace of the (sub)graph task that asked, `node:taskId|child:taskId`: only on
   * `snapshot.interrupts` (an Interlude addition), so the `{ id, value }` of results and
   * tasks compare equal to LangGraph's.
   */
  ns?: string;
}
