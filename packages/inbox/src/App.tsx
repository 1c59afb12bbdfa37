/** Signs the reviewer in when the server asks for a key, then routes between inbox and thread. */
import { useEffect, useMemo, useState } from "preact/hooks";
import { createApi } from "./api/client";
import { UnauthorizedError } from "./api/errors";
import { LoginPrompt } from "./components/LoginPrompt";
import { useRoute } from "./state/route";
import { loadApiKey, saveApiKey } from "./state/session";
import { InboxView } from "./views/InboxView";
import { ThreadView } from "./views/ThreadView";

type Auth = { state: "checking" } | { state: "ok"; key: string | null } | { state: "needed"; error?: string };

export function App() {
  const [auth, setAuth] = useState<Auth>({ state: "checking" });
  const route = useRoute();

  const tryKey = async (key: string | null) => {
    setAuth({ state: "checking" });
    try {
      await createApi({ baseUrl: location.origin, apiKey: key }).listInterrupts({ limit: 1 });
      saveApiKey(key);
      setAuth({ state: "ok", key });
    } catch (e) {
      if (!(e instanceof UnauthorizedError)) return setAuth({ state: "ok", key });
      saveApiKey(null);
      setAuth(
        key ? { state: "needed", error: "That key was not accepted. Check it and try again." } : { state: "needed" },
      );
    }
  };

  useEffect(() => {
    tryKey(loadApiKey());
  }, []);

  const key = auth.state === "ok" ? auth.key : null;
  const api = useMemo(() => createApi({ baseUrl: location.origin, apiKey: key }), [key]);

  if (auth.state === "checking") return <p class="muted center">Connecting…</p>;
  if (auth.state === "needed") return <LoginPrompt error={auth.error} onSubmit={tryKey} />;

  return (
    <div class="app">
      <header class="topbar">
        <a class="brand" href="#/">
          Interlude <span>Inbox</span>
        </a>
        <nav aria-label="Main">
          <a href="#/" aria-current={route.view === "inbox" ? "page" : undefined}>
            Pending
          </a>
        </nav>
        {key && (
          <button
            type="button"
            class="link"
            onClick={() => {
              saveApiKey(null);
              setAuth({ state: "needed" });
            }}
          >
            Sign out
          </button>
        )}
      </header>
      {route.view === "thread" ? (
        <ThreadView api={api} threadId={route.threadId} />
      ) : (
        <InboxView
          api={api}
          apiKey={key}
          initialKey={route.threadId && route.interruptId ? `${route.threadId}/${route.interruptId}` : undefined}
        />
      )}
    </div>
  );
}
