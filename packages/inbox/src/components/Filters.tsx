/** Filters for the list: graph, minimum age, and text. */
import { useEffect, useState } from "preact/hooks";
import type { InboxFilter } from "../api/types";

interface Props {
  graphs: string[];
  filter: InboxFilter;
  onChange: (filter: InboxFilter) => void;
}

const AGES: Array<[string, number | undefined]> = [
  ["Any age", undefined],
  ["Waiting 1 min+", 60],
  ["Waiting 10 min+", 600],
  ["Waiting 1 hour+", 3600],
  ["Waiting 1 day+", 86400],
];

export function Filters({ graphs, filter, onChange }: Props) {
  const [text, setText] = useState(filter.q ?? "");
  // Typing refreshes the list after a pause, not per key.
  useEffect(() => {
    const t = setTimeout(() => {
      if ((filter.q ?? "") !== text) onChange({ ...filter, q: text || undefined });
    }, 250);
    return () => clearTimeout(t);
  }, [text]);

  return (
    <form class="filters" role="search" aria-label="Filter pending interrupts" onSubmit={(e) => e.preventDefault()}>
      <label>
        <span class="sr-only">Graph</span>
        <select
          aria-label="Graph"
          value={filter.graph_id ?? ""}
          onChange={(e) => onChange({ ...filter, graph_id: e.currentTarget.value || undefined })}
        >
          <option value="">All graphs</option>
          {graphs.map((g) => (
            <option key={g} value={g}>
              {g}
            </option>
          ))}
        </select>
      </label>
      <label>
        <span class="sr-only">Age</span>
        <select
          aria-label="Age"
          value={String(filter.min_age_seconds ?? "")}
          onChange={(e) =>
            onChange({ ...filter, min_age_seconds: e.currentTarget.value ? Number(e.currentTarget.value) : undefined })
          }
        >
          {AGES.map(([label, s]) => (
            <option key={label} value={s === undefined ? "" : String(s)}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <label class="grow">
        <span class="sr-only">Search</span>
        <input
          type="search"
          aria-label="Search"
          placeholder="Search payloads…"
          value={text}
          onInput={(e) => setText(e.currentTarget.value)}
        />
      </label>
    </form>
  );
}
