/** The reviewer's main screen: the pending list, filters, and the selected item to answer. */
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { Api } from "../api/client";
import type { InboxFilter, InboxItem } from "../api/types";
import type { ActionCommand } from "../components/answer-view";
import { Filters } from "../components/Filters";
import { InboxList, optionId } from "../components/InboxList";
import { ItemDetail } from "../components/ItemDetail";
import { shortId } from "../domain/format";
import { summarizeAnswer } from "../domain/human-interrupt";
import { itemHref } from "../state/route";
import { itemKey, useInbox } from "../state/useInbox";
import { useShortcuts } from "../state/useShortcuts";

interface Props {
  api: Api;
  apiKey: string | null;
  initialKey?: string | undefined;
}

export function InboxView({ api, apiKey, initialKey }: Props) {
  const [filter, setFilter] = useState<InboxFilter>({});
  const inbox = useInbox(api, apiKey, filter);
  const [graphs, setGraphs] = useState<string[]>([]);
  const [selected, setSelected] = useState<InboxItem>();
  const [command, setCommand] = useState<ActionCommand>();
  const [status, setStatus] = useState("");
  const lastIndex = useRef(0);
  const answeredByMe = useRef(new Set<string>());
  const selectedKey = selected ? itemKey(selected) : initialKey;

  useEffect(() => {
    api.searchAssistants().then(
      (list) => setGraphs([...new Set(list.map((a) => a.graph_id))].sort()),
      () => setGraphs([]),
    );
  }, [api]);

  // Keep the selection sensible as the list changes under it. A functional update, so that a
  // click queued in the same frame as a list refresh is the one that wins.
  useEffect(() => {
    const { items } = inbox;
    setSelected((prev) => {
      const key = prev ? itemKey(prev) : initialKey;
      const at = items.findIndex((i) => itemKey(i) === key);
      if (at >= 0) {
        lastIndex.current = at;
        return items[at];
      }
      // Answered elsewhere: keep it on screen with the banner. Answered here: on to the next.
      if (prev && !answeredByMe.current.has(itemKey(prev))) return prev;
      return items[Math.min(lastIndex.current, items.length - 1)];
    });
  }, [inbox.items]);

  const select = (item: InboxItem | undefined) => {
    if (!item) return;
    setStatus("");
    setSelected(item);
    lastIndex.current = Math.max(0, inbox.items.indexOf(item));
    history.replaceState(null, "", itemHref(item.thread_id, item.interrupt_id));
    document.getElementById(optionId(itemKey(item)))?.scrollIntoView({ block: "nearest" });
  };

  const move = (delta: number) => {
    const { items } = inbox;
    if (!items.length) return;
    const at = items.findIndex((i) => itemKey(i) === selectedKey);
    const from = at >= 0 ? at : lastIndex.current - (delta > 0 ? 1 : 0);
    select(items[Math.max(0, Math.min(items.length - 1, from + delta))]);
  };

  const seq = useRef(0);
  useShortcuts({
    j: () => move(1),
    k: () => move(-1),
    a: () => setCommand({ action: "accept", seq: ++seq.current }),
    e: () => setCommand({ action: "edit", seq: ++seq.current }),
    r: () => setCommand({ action: "respond", seq: ++seq.current }),
    i: () => setCommand({ action: "ignore", seq: ++seq.current }),
  });

  const onAnswered = (item: InboxItem, answer: unknown, queued: boolean) => {
    answeredByMe.current.add(itemKey(item));
    const when = queued ? " It runs when the thread's current run ends." : "";
    setStatus(`Answered ${summarizeAnswer(answer)} on thread ${shortId(item.thread_id)}.${when}`);
    inbox.refresh();
  };

  const resolvedElsewhere = useMemo(() => {
    if (!selectedKey || answeredByMe.current.has(selectedKey)) return undefined;
    return inbox.resolved.get(selectedKey);
  }, [inbox.resolved, selectedKey]);

  return (
    <main class="inbox">
      <section class="list-pane" aria-label="Pending">
        <div class="list-head">
          <h1>
            Pending{" "}
            <span class="count" aria-live="polite" data-testid="count">
              {inbox.total}
            </span>
          </h1>
          <span class={inbox.live ? "live on" : "live"} title={inbox.live ? "Live updates on" : "Reconnecting…"}>
            {inbox.live ? "live" : "offline"}
          </span>
        </div>
        <Filters graphs={graphs} filter={filter} onChange={setFilter} />
        {inbox.error && (
          <p class="banner error" role="alert">
            {inbox.error}
          </p>
        )}
        {!inbox.loading && inbox.items.length === 0 && !inbox.error && <p class="empty">Nothing is waiting for you.</p>}
        <InboxList items={inbox.items} selected={selectedKey} onSelect={select} />
        <p class="shortcuts muted small">
          <kbd>j</kbd>/<kbd>k</kbd> move · <kbd>a</kbd> accept · <kbd>e</kbd> edit · <kbd>r</kbd> respond · <kbd>i</kbd>{" "}
          ignore
        </p>
      </section>
      <section class="detail-pane" aria-label="Selected interrupt">
        <p class="status" role="status">
          {status}
        </p>
        {selected ? (
          <ItemDetail
            key={itemKey(selected)}
            api={api}
            item={selected}
            resolvedElsewhere={resolvedElsewhere}
            command={command}
            onAnswered={onAnswered}
          />
        ) : (
          <p class="empty">Select an item to answer it.</p>
        )}
      </section>
    </main>
  );
}
