/** Asks for the reviewer's API key; the server maps it to the identity recorded with answers. */
import { useState } from "preact/hooks";
import { InputError, invalidWhen, submitted } from "./form-parts";

interface Props {
  error?: string | undefined;
  onSubmit: (key: string) => void;
}

export function LoginPrompt({ error, onSubmit }: Props) {
  const [key, setKey] = useState("");
  return (
    <main class="login">
      <form
        class="panel login-card"
        aria-labelledby="login-title"
        onSubmit={submitted(() => key.trim() && onSubmit(key.trim()))}
      >
        <h1 id="login-title">Interlude Inbox</h1>
        <p class="muted">
          This server asks for an API key. Your answers are recorded under the identity it belongs to.
        </p>
        <label for="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          autoComplete="off"
          value={key}
          onInput={(e) => setKey(e.currentTarget.value)}
          {...invalidWhen("login", error)}
        />
        <InputError id="login" error={error} />
        <div class="actions">
          <button type="submit" class="primary">
            Sign in
          </button>
        </div>
        <p class="muted small">The key is kept in this tab's session storage only.</p>
      </form>
    </main>
  );
}
