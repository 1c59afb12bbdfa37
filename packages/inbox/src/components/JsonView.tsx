/** Readable, collapsible JSON: objects and arrays fold with native <details>. */
import type { ComponentChildren } from "preact";

interface Props {
  value: unknown;
  /** Levels open at first. */
  open?: number;
  label?: string;
}

export function JsonView({ value, open = 2, label }: Props) {
  return (
    <div class="json" role="group" aria-label={label ?? "JSON value"}>
      <JsonNode value={value} depth={0} open={open} />
    </div>
  );
}

function Leaf({ value }: { value: unknown }) {
  if (value === null) return <span class="j-null">null</span>;
  switch (typeof value) {
    case "string":
      return <span class="j-str">{JSON.stringify(value)}</span>;
    case "number":
      return <span class="j-num">{String(value)}</span>;
    case "boolean":
      return <span class="j-bool">{String(value)}</span>;
    default:
      return <span class="j-null">{value === undefined ? "undefined" : String(value)}</span>;
  }
}

function JsonNode({
  value,
  depth,
  open,
  name,
}: {
  value: unknown;
  depth: number;
  open: number;
  name?: ComponentChildren;
}) {
  const key = name !== undefined ? <span class="j-key">{name}: </span> : null;
  if (value === null || typeof value !== "object") {
    return (
      <div class="j-row">
        {key}
        <Leaf value={value} />
      </div>
    );
  }
  const entries: Array<[string, unknown]> = Array.isArray(value)
    ? value.map((v, i) => [String(i), v])
    : Object.entries(value);
  const [openB, closeB] = Array.isArray(value) ? ["[", "]"] : ["{", "}"];
  if (entries.length === 0) {
    return (
      <div class="j-row">
        {key}
        <span class="j-punct">{openB + closeB}</span>
      </div>
    );
  }
  return (
    <details class="j-node" open={depth < open}>
      <summary>
        {key}
        <span class="j-punct">{openB}</span>
        <span class="j-count">
          {" "}
          {entries.length}{" "}
          {Array.isArray(value)
            ? entries.length === 1
              ? "item"
              : "items"
            : entries.length === 1
              ? "key"
              : "keys"}{" "}
        </span>
      </summary>
      <div class="j-children">
        {entries.map(([k, v]) => (
          <JsonNode key={k} value={v} depth={depth + 1} open={open} name={k} />
        ))}
      </div>
      <span class="j-punct">{closeB}</span>
    </details>
  );
}
