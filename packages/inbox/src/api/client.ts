/**
 * The inbox's calls to the Interlude server: the LangGraph Server API paths the SDK's Client
 * uses, plus `/inbox/*`. Every request carries the reviewer's API key.
 */
import { errorFor } from "./errors";
import type { Assistant, AssistantGraph, InboxFilter, InboxPage, Thread, ThreadState } from "./types";

export interface ApiOptions {
  baseUrl: string;
  apiKey?: string | null;
  fetch?: typeof fetch;
}

export type Api = ReturnType<typeof createApi>;

const enc = encodeURIComponent;

export function createApi({ baseUrl, apiKey, fetch: doFetch = fetch.bind(globalThis) }: ApiOptions) {
  function headers(json: boolean): Record<string, string> {
    const h: Record<string, string> = { accept: "application/json" };
    if (json) h["content-type"] = "application/json";
    if (apiKey) h["x-api-key"] = apiKey;
    return h;
  }

  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await doFetch(baseUrl + path, {
      method,
      headers: headers(body !== undefined),
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: keep the text for the error message
    }
    if (!res.ok) throw errorFor(res.status, parsed);
    return parsed as T;
  }

  return {
    listInterrupts(filter: InboxFilter = {}): Promise<InboxPage> {
      const query = Object.entries(filter)
        .filter(([, v]) => v !== undefined && v !== "" && v !== null)
        .map(([k, v]) => `${k}=${enc(String(v))}`)
        .join("&");
      return call("GET", `/inbox/interrupts${query ? `?${query}` : ""}`);
    },
    searchAssistants(): Promise<Assistant[]> {
      return call("POST", "/assistants/search", { limit: 100 });
    },
    getGraph(assistantId: string): Promise<AssistantGraph> {
      return call("GET", `/assistants/${enc(assistantId)}/graph`);
    },
    getThread(threadId: string): Promise<Thread> {
      return call("GET", `/threads/${enc(threadId)}`);
    },
    getState(threadId: string, checkpointId?: string): Promise<ThreadState> {
      return call("GET", `/threads/${enc(threadId)}/state${checkpointId ? `/${enc(checkpointId)}` : ""}`);
    },
    getHistory(threadId: string, limit = 100): Promise<ThreadState[]> {
      return call("POST", `/threads/${enc(threadId)}/history`, { limit });
    },
    /**
     * Answers one interrupt by id. The server replies once the answer was taken (the run goes
     * on in the background) or refused: 409 already answered, 422 invalid for its schema.
     */
    answer(
      threadId: string,
      interruptId: string,
      answer: unknown,
    ): Promise<{ by?: string; at?: string; status?: string }> {
      return call("POST", "/inbox/answer", { thread_id: threadId, interrupt_id: interruptId, answer });
    },
    /** Runs the thread again from a checkpoint (replay), or from a fork's new checkpoint. */
    runFrom(threadId: string, assistantId: string, checkpointId: string): Promise<unknown> {
      return runWait(threadId, { assistant_id: assistantId, input: null, checkpoint_id: checkpointId });
    },
    /** Writes `values` on top of a checkpoint, creating a new branch (a fork). */
    fork(
      threadId: string,
      checkpointId: string,
      values: unknown,
      asNode?: string,
    ): Promise<{ checkpoint: { checkpoint_id: string } }> {
      const body: Record<string, unknown> = { values, checkpoint: { checkpoint_id: checkpointId } };
      if (asNode) body.as_node = asNode;
      return call("POST", `/threads/${enc(threadId)}/state`, body);
    },
  };

  async function runWait(threadId: string, body: Record<string, unknown>): Promise<unknown> {
    const out = await call<unknown>("POST", `/threads/${enc(threadId)}/runs/wait`, body);
    // The LangGraph API reports a run that failed after starting inside a 200 body.
    const failure = (out as { __error__?: { error?: string; message?: string } } | null)?.__error__;
    if (failure) throw errorFor(500, { message: `${failure.error ?? "Error"}: ${failure.message ?? ""}` });
    return out;
  }
}
