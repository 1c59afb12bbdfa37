/**
 * A form generated from a JSON Schema. The server validates; its issues are shown next to the
 * fields they name, and the others above the submit button.
 */

import type { JSX } from "preact";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { AnswerIssue, JsonSchema } from "../api/types";
import { answerFrom, type Field, type FormValues, fieldsOf, initialValues, issuesByField } from "../domain/schema-form";

interface Props {
  id: string;
  schema: JsonSchema;
  submitLabel: string;
  onSubmit: (answer: unknown) => void;
  onCancel?: () => void;
  issues?: readonly AnswerIssue[];
  disabled?: boolean;
  /** Focus the first field on mount when true, and again whenever a new number is given. */
  focus?: boolean | number;
  shortcut?: string;
  /** Checks the answer before it is submitted; its issues are shown like the server's. */
  validate?: (answer: unknown) => readonly AnswerIssue[];
}

export function SchemaForm({
  id,
  schema,
  submitLabel,
  onSubmit,
  onCancel,
  issues = [],
  disabled,
  focus,
  shortcut,
  validate,
}: Props) {
  const fields = useMemo(() => fieldsOf(schema), [schema]);
  const [values, setValues] = useState<FormValues>(() => initialValues(schema, fields));
  const [localIssues, setLocalIssues] = useState<readonly AnswerIssue[]>([]);
  const formRef = useRef<HTMLFormElement>(null);
  const shown = issuesByField([...localIssues, ...issues], fields);

  useEffect(() => {
    if (focus) formRef.current?.querySelector<HTMLElement>("input, textarea, select")?.focus();
  }, [focus]);

  // Move focus to the first field rejected, so keyboard users land on it.
  useEffect(() => {
    if (issues.length || localIssues.length)
      formRef.current?.querySelector<HTMLElement>("[aria-invalid=true]")?.focus();
  }, [issues, localIssues]);

  const submit = (e: Event) => {
    e.preventDefault();
    const result = answerFrom(fields, values);
    const local =
      "errors" in result
        ? Object.entries(result.errors).map(([key, message]) => ({
            message,
            path: fields.find((f) => f.key === key)?.path ?? [],
          }))
        : (validate?.(result.answer) ?? []);
    setLocalIssues(local);
    if (!local.length && "answer" in result) onSubmit(result.answer);
  };

  return (
    <form ref={formRef} class="schema-form" noValidate onSubmit={submit} aria-label={submitLabel}>
      {schema.description && <p class="hint">{schema.description}</p>}
      {fields.map((f) => (
        <FieldInput
          key={f.key}
          formId={id}
          field={f}
          value={values[f.key]}
          errors={shown.byField[f.key] ?? []}
          onChange={(v) => setValues((prev) => ({ ...prev, [f.key]: v }))}
        />
      ))}
      {shown.other.length > 0 && (
        <ul class="form-errors" role="alert">
          {shown.other.map((m) => (
            <li key={m}>{m}</li>
          ))}
        </ul>
      )}
      <div class="actions">
        <button type="submit" class="primary" disabled={disabled} aria-keyshortcuts={shortcut}>
          {submitLabel}
        </button>
        {onCancel && (
          <button type="button" onClick={onCancel} disabled={disabled}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}

interface FieldProps {
  formId: string;
  field: Field;
  value: string | boolean | undefined;
  errors: string[];
  onChange: (value: string | boolean) => void;
}

function FieldInput({ formId, field: f, value, errors, onChange }: FieldProps) {
  const id = `${formId}-${f.key || "answer"}`.replace(/[^\w-]/g, "_");
  const described =
    [f.description ? `${id}-desc` : "", errors.length ? `${id}-err` : ""].filter(Boolean).join(" ") || undefined;
  const common = {
    id,
    name: f.key || "answer",
    "aria-invalid": errors.length > 0,
    "aria-describedby": described,
    "aria-required": f.required,
  };
  const text = typeof value === "string" ? value : "";
  const onText = (e: Event) => onChange((e.currentTarget as HTMLInputElement).value);
  let input: JSX.Element;
  switch (f.kind) {
    case "boolean":
      input = (
        <input
          type="checkbox"
          {...common}
          checked={value === true}
          onChange={(e) => onChange(e.currentTarget.checked)}
        />
      );
      break;
    case "select":
      input = (
        <select {...common} value={text} onChange={onText}>
          <option value="">Choose…</option>
          {f.options?.map((o, i) => (
            <option key={i} value={String(i)}>
              {typeof o === "string" ? o : JSON.stringify(o)}
            </option>
          ))}
        </select>
      );
      break;
    case "number":
    case "integer":
      input = (
        <input
          type="text"
          inputMode={f.kind === "integer" ? "numeric" : "decimal"}
          {...common}
          value={text}
          onInput={onText}
        />
      );
      break;
    case "multiline":
      input = <textarea rows={4} {...common} value={text} onInput={onText} />;
      break;
    case "json":
      input = <textarea rows={4} class="mono" spellcheck={false} {...common} value={text} onInput={onText} />;
      break;
    default:
      input = <input type="text" {...common} value={text} onInput={onText} />;
  }
  return (
    <div class={`field field-${f.kind}${errors.length ? " invalid" : ""}`}>
      <label for={id}>
        {f.label}
        {f.required && f.kind !== "boolean" && (
          <span class="req" aria-hidden="true">
            {" "}
            *
          </span>
        )}
        {f.kind === "json" && <span class="muted"> (JSON)</span>}
      </label>
      {input}
      {f.description && (
        <p id={`${id}-desc`} class="hint">
          {f.description}
        </p>
      )}
      {errors.length > 0 && (
        <p id={`${id}-err`} class="field-error" role="alert">
          {errors.join(" ")}
        </p>
      )}
    </div>
  );
}
