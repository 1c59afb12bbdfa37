/** The reviewer's API key lives in sessionStorage: it survives reloads, not the closed tab. */
const KEY = "interlude.apiKey";

export function loadApiKey(): string | null {
  try {
    return sessionStorage.getItem(KEY);
  } catch {
    return null;
  }
}

export function saveApiKey(key: string | null): void {
  if (key) sessionStorage.setItem(KEY, key);
  else sessionStorage.removeItem(KEY);
}
