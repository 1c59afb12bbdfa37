/**
 * A run's time limits, as LangGraph.js takes them: the run's `timeout` (ms, LangChain's config
 * field) and the graph's `stepTimeout` (ms per step). Either aborts the run's signal, which its
 * nodes get as `config.signal`: the run stops as a cancelled one, its last checkpoint intact.
 */
export class RunDeadline {
  /** The run's signal: the caller's, bounded by the limits. */
  readonly signal: AbortSignal | undefined;
  /**
   * Aborted by the limits, and held here with their timers for as long as the run lasts. Not
   * `AbortSignal.timeout`: inside `AbortSignal.any` (a run with a signal of its own too), Node
   * 20 may collect it before it fires, and the run would never time out (COMPATIBILITY.md, "A
   * run's timeout holds under garbage collection").
   */
  private readonly limits?: AbortController;
  private runTimer?: NodeJS.Timeout;
  private stepTimer?: NodeJS.Timeout;

  constructor(
    given: AbortSignal | undefined,
    timeoutMs: number | undefined,
    private readonly stepMs: number | undefined,
  ) {
    // Most runs have no limit: their signal is the caller's, with nothing built per run.
    if (timeoutMs === undefined && stepMs === undefined) {
      this.signal = given;
      return;
    }
    const limits = new AbortController();
    this.limits = limits;
    if (timeoutMs !== undefined) {
      // The reason AbortSignal.timeout gives.
      this.runTimer = setTimeout(
        () => limits.abort(new DOMException("The operation was aborted due to timeout", "TimeoutError")),
        timeoutMs,
      );
      this.runTimer.unref();
    }
    this.signal = given ? AbortSignal.any([given, limits.signal]) : limits.signal;
  }

  /** True when the run has a limit (then `end()` stops its clocks). */
  get timed(): boolean {
    return this.limits !== undefined;
  }

  /** True when the step is timed (then `stepEnded()` stops its clock). */
  stepStarted(): boolean {
    if (this.stepMs === undefined) return false;
    const limits = this.limits!;
    this.stepTimer = setTimeout(
      () => limits.abort(new Error(`Aborted: a step took longer than the graph's stepTimeout (${this.stepMs} ms).`)),
      this.stepMs,
    );
    this.stepTimer.unref();
    return true;
  }

  stepEnded(): void {
    clearTimeout(this.stepTimer);
  }

  /** The run is over: its clocks stop. */
  end(): void {
    clearTimeout(this.runTimer);
    clearTimeout(this.stepTimer);
  }
}
