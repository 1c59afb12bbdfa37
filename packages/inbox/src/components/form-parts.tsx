/** Small pieces every hand-made form here uses: the submit handler and an input's error message. */

/** A submit handler that keeps the page where it is. */
export const submitted = (fn: () => void) => (e: Event) => {
  e.preventDefault();
  fn();
};

/** Marks an input invalid and points it at its error message, when there is one. */
export const invalidWhen = (id: string, error: string | undefined) => ({
  "aria-invalid": !!error,
  "aria-describedby": error ? `${id}-error` : undefined,
});

export function InputError({ id, error }: { id: string; error: string | undefined }) {
  if (!error) return null;
  return (
    <p id={`${id}-error`} class="field-error" role="alert">
      {error}
    </p>
  );
}
