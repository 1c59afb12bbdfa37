/** Edit the state at a checkpoint and fork the thread from it. */
import { useState } from "preact/hooks";
import { shortCheckpoint } from "../domain/format";
import type { TimelineEntry } from "../domain/timeline";
import { InputError, invalidWhen, submitted } from "./form-parts";

interface Props {
  entry: TimelineEntry;
  busy: boolean;
  error?: string | undefined;
  onFork: (values: unknown, run: boolean) => void;
  onCancel: () => void;
}

export function ForkEditor({ entry, busy, error, onFork, onCancel }: Props) {
  const [text, setText] = useState(() => JSON.stringify(entry.values ?? {}, null, 2));
  const [parseError, setParseError] = useState<string>();
  const submit = (run: boolean) => {
    try {
      const values = JSON.parse(text);
      setParseError(undefined);
      onFork(values, run);
    } catch (e) {
      setParseError(`Not valid JSON: ${(e as Error).message}`);
    }
  };
  const shown = parseError ?? error;
  return (
    <form class="panel fork" aria-label="Fork with edited state" onSubmit={submitted(() => submit(true))}>
      <h3>
        Fork from step {entry.step} <code>{shortCheckpoint(entry.checkpointId)}</code>
      </h3>
      <label for="fork-state">State for the new branch</label>
      <textarea
        id="fork-state"
        class="mono"
        rows={10}
        spellcheck={false}
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
        {...invalidWhen("fork", shown)}
      />
      <InputError id="fork" error={shown} />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          Fork and run
        </button>
        <button type="button" disabled={busy} onClick={() => submit(false)}>
          Fork only
        </button>
        <button type="button" disabled={busy} onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
