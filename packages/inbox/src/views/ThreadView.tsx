/** One thread: the graph with where it is paused, its current state, and its timeline. */
import { useEffect, useState } from "preact/hooks";
import type { Api } from "../api/client";
import type { AssistantGraph, Thread, ThreadState } from "../api/types";
import { GraphDrawing } from "../components/GraphDrawing";
import { StatePanel } from "../components/StatePanel";
import { TimelinePanel } from "../components/TimelinePanel";
import { conversationOf } from "../domain/conversation";
import { buildTimeline, type TimelineEntry } from "../domain/timeline";

interface Loaded {
  thread: Thread;
  state: ThreadState;
  history: ThreadState[];
  assistantId?: string | undefined;
  graph?: AssistantGraph | undefined;
}

async function resolveAssistant(api: Api, thread: Thread): Promise<string | undefined> {
  const meta = thread.metadata ?? {};
  if (typeof meta.assistant_id === "string") return meta.assistant_id;
  const graphId = typeof meta.graph_id === "string" ? meta.graph_id : undefined;
  const list = await api.searchAssistants().catch(() => []);
  return (list.find((a) => a.graph_id === graphId) ?? (graphId ? undefined : list[0]))?.assistant_id;
}

async function load(
  api: Api,
  threadId: string,
  known?: { assistantId?: string | undefined; graph?: AssistantGraph | undefined },
): Promise<Loaded> {
  const [thread, state, history] = await Promise.all([
    api.getThread(threadId),
    api.getState(threadId),
    api.getHistory(threadId, 200),
  ]);
  const assistantId = known?.assistantId ?? (await resolveAssistant(api, thread));
  const graph = known?.graph ?? (assistantId ? await api.getGraph(assistantId).catch(() => undefined) : undefined);
  return { thread, state, history, assistantId, graph };
}

export function ThreadView({ api, threadId }: { api: Api; threadId: string }) {
  const [data, setData] = useState<Loaded>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [actionError, setActionError] = useState<string>();
  const [status, setStatus] = useState("");

  const reload = (known?: Loaded) => load(api, threadId, known).then(setData, (e: Error) => setError(e.message));
  useEffect(() => {
    setData(undefined);
    reload();
  }, [threadId]);

  if (error)
    return (
      <main class="thread">
        <p class="banner error" role="alert">
          {error}
        </p>
      </main>
    );
  if (!data)
    return (
      <main class="thread">
        <p class="muted">Loading thread…</p>
      </main>
    );

  // A conversation needs the wide column; other state fits beside the graph.
  const chat = conversationOf(data.state.values) !== undefined;
  const entries = buildTimeline(data.history, data.state.checkpoint.checkpoint_id ?? undefined);
  const paused = data.state.next ?? [];

  /** Runs a reviewer's action on the thread, then shows the thread as it now is; false if it failed. */
  const act = async (what: string, fn: () => Promise<unknown>): Promise<boolean> => {
    setBusy(true);
    setActionError(undefined);
    try {
      await fn();
      setStatus(what);
      await reload(data);
      return true;
    } catch (e) {
      setActionError((e as Error).message);
      return false;
    } finally {
      setBusy(false);
    }
  };

  const replay = (e: TimelineEntry) =>
    act(`Replayed from step ${e.step}.`, () => api.runFrom(threadId, data.assistantId ?? "", e.checkpointId));

  const fork = (e: TimelineEntry, values: unknown, run: boolean) =>
    act(run ? `Forked from step ${e.step} and ran the new branch.` : `Forked from step ${e.step}.`, async () => {
      const made = await api.fork(threadId, e.checkpointId, values);
      if (run) await api.runFrom(threadId, data.assistantId ?? "", made.checkpoint.checkpoint_id);
    });

  return (
    <main class="thread">
      <header class="thread-head">
        <a href="#/" class="back">
          ← Inbox
        </a>
        <h1>
          Thread <code>{data.thread.thread_id}</code>
        </h1>
        <span class={`status-pill ${data.thread.status}`}>{data.thread.status}</span>
        {paused.length > 0 && <span class="muted">paused at {paused.join(", ")}</span>}
      </header>
      <p class="status" role="status">
        {status}
      </p>
      {actionError && (
        <p class="banner error" role="alert">
          {actionError}
        </p>
      )}
      <div class="thread-grid">
        <div class="thread-side">
          <section class="panel" aria-labelledby="graph-title">
            <h2 id="graph-title">Graph</h2>
            {data.graph ? (
              <GraphDrawing
                graph={data.graph}
                paused={paused}
                title={String(data.thread.metadata?.graph_id ?? "graph")}
              />
            ) : (
              <p class="muted">The graph's drawing is not available.</p>
            )}
          </section>
          {!chat && <StatePanel values={data.state.values} />}
        </div>
        <div class="thread-main">
          {chat && <StatePanel values={data.state.values} />}
          <TimelinePanel entries={entries} busy={busy} error={actionError} onReplay={replay} onFork={fork} />
        </div>
      </div>
    </main>
  );
}
