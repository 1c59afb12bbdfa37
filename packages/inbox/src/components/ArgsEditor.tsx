/** Editing a proposed action's arguments in a form, opened on their current values. */
import type { AnswerIssue, JsonSchema } from "../api/types";
import { SchemaForm } from "./SchemaForm";

interface Props {
  id: string;
  /** The action the arguments belong to, to name the panel. */
  action: string;
  schema: JsonSchema;
  submitLabel: string;
  busy: boolean;
  issues?: readonly AnswerIssue[] | undefined;
  validate?: (args: unknown) => readonly AnswerIssue[];
  onCancel: () => void;
  onSubmit: (args: Record<string, unknown>) => void;
}

export function ArgsEditor({ id, action, busy, onSubmit, ...form }: Props) {
  return (
    <section aria-label={`Edit the arguments of ${action}`} class="panel">
      <h3>Edit the arguments</h3>
      <SchemaForm
        id={id}
        focus
        disabled={busy}
        onSubmit={(args) => onSubmit(args as Record<string, unknown>)}
        {...form}
      />
    </section>
  );
}
