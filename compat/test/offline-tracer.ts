/** A LangSmith tracer for the compat scenarios: it keeps what it would send, sending nothing. */
import { LangChainTracer } from "@langchain/core/tracers/tracer_langchain";

/** A LangSmith tracer whose client keeps each run's name and metadata instead of posting them. */
export function offlineTracer() {
  const traces: { name: string; metadata: Record<string, unknown> }[] = [];
  const client = {
    createRun: async (run: { name?: string; extra?: { metadata?: Record<string, unknown> } }) => {
      traces.push({ name: run.name ?? "", metadata: run.extra?.metadata ?? {} });
    },
    updateRun: async () => undefined,
    batchIngestRuns: async () => undefined,
  };
  return { tracer: new LangChainTracer({ client: client as never, projectName: "compat" }), traces };
}
