/**
 * A run's time limits, as LangGraph.js takes them: the run's `timeout` (ms, LangChain's config
 * field) and the graph's `stepTimeout` (ms per step). Either aborts the run's signal, which its
 * nodes get as `config.signal`: the run stops as a cancelled one, its last checkpoint intact.
 */
export class RunDeadline {
  /** The run's signal: the caller's, bounded by the limits. */
  readonly signal: AbortSignal | undefined;
  private readonly step?: AbortController;
  private timer?: NodeJS.Timeout;

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
    const signals: AbortSignal[] = given ? [given] : [];
    if (timeoutMs !== undefined) signals.push(AbortSignal.timeout(timeoutMs));
    if (stepMs !== undefined) {
      this.step = new AbortController();
      signals.push(this.step.signal);
    }
    this.signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
  }

  /** True when the step is timed (then `stepEnded()` stops its clock). */
  stepStarted(): boolean {
    if (!this.step) return false;
    this.timer = setTimeout(
      () =>
        this.step!.abort(new Error(`Aborted: a step took longer than the graph's stepTimeout (${this.stepMs} ms).`)),
      this.stepMs,
    );
    this.timer.unref();
    return true;
  }

  stepEnded(): void {
    clearTimeout(this.timer);
  }
}
