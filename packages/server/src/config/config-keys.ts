/**
 * The keys of a `langgraph.json` besides what Interlude reads (config.ts): those only the image
 * build reads, which a running server has nothing to do with, and those of features LangGraph's
 * server has and Interlude's does not, refused with what to do instead. A key nobody knows is
 * refused by config.ts's schema.
 */

/** Read by `langgraph build`/`up`/`dockerfile` for the image, or by editors (`$schema`): no effect on a running server. */
const BUILD_ONLY = new Set([
  "$schema",
  "dependencies",
  "dockerfile_lines",
  "docker_compose_file",
  "node_version",
  "python_version",
  "pip_config_file",
  "pip_installer",
  "base_image",
  "image_distro",
  "keep_pkg_tools",
  "api_version",
  "_INTERNAL_docker_tag",
]);

/** Features of LangGraph's server that `interlude serve` does not have: refused, each with what to do instead. */
const NOT_SERVED: Readonly<Record<string, string>> = {
  http: "custom routes, CORS, a mount prefix and disabled route groups (`http`) are not served by interlude serve. Put a reverse proxy in front for CORS and routing, and remove `http`.",
  store:
    "the store's semantic index and TTLs (`store.index`, `store.ttl`) are not supported: graphs and the /store API get the store without them. Remove `store`.",
  ui: "generative UI components (`ui`) are not served by interlude serve. Remove `ui`.",
  ui_config: "generative UI components (`ui_config`) are not served by interlude serve. Remove `ui_config`.",
  webhooks:
    "webhooks (`webhooks`) are not sent by interlude serve. Remove `webhooks`; follow runs with runs/wait, join or the inbox's events.",
  node_loader:
    "custom module loaders (`node_loader`) are not used: interlude serve imports the graphs' modules with Node's own loader. Remove `node_loader`.",
};

const AUTH_NOT_SERVED: Readonly<Record<string, string>> = {
  path: "custom auth handlers (`auth.path`) are not run by interlude serve, which would then let every request in. Use API keys (`auth.api_keys`, or INTERLUDE_API_KEYS) or an authenticating proxy in front, and remove `auth.path`.",
  openapi:
    "`auth.openapi` describes a custom auth handler, which interlude serve does not run (see `auth.path`). Remove it.",
};

/**
 * Why the config cannot be served as written (a key of a feature Interlude does not have), or
 * else the config without its build-only keys, for config.ts's schema.
 */
export function servedKeys(raw: unknown): { refusal: string } | { served: unknown } {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return { served: raw };
  const served: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    const refusal = NOT_SERVED[key];
    if (refusal) return { refusal };
    if (!BUILD_ONLY.has(key)) served[key] = value;
  }
  const auth = served.auth;
  if (typeof auth === "object" && auth !== null)
    for (const key of Object.keys(auth)) if (AUTH_NOT_SERVED[key]) return { refusal: AUTH_NOT_SERVED[key] };
  if (Array.isArray(served.env))
    return {
      refusal:
        "`env` as a list names LangGraph Platform secrets, which interlude serve cannot read. Give the path of a .env file, or the variables as an object.",
    };
  return { served };
}
