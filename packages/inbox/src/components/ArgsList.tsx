/** A tool call's or action's arguments, one row each: text as is, anything else as JSON. */
import { JsonView } from "./JsonView";

export function ArgsList({ args }: { args: Record<string, unknown> }) {
  if (Object.keys(args).length === 0) return <p class="muted">No arguments.</p>;
  return (
    <dl>
      {Object.entries(args).map(([k, v]) => (
        <div key={k} class="arg">
          <dt>{k}</dt>
          <dd>{typeof v === "string" ? v : <JsonView value={v} open={1} label={k} />}</dd>
        </div>
      ))}
    </dl>
  );
}
