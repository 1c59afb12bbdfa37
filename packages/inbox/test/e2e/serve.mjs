// Starts the Interlude server the way `interlude serve --config <file> --host <h> --port <p>`
// does, through @interlude/server's module API (the harness uses the CLI when it is built).
// Prints the URL on stdout once listening.
import { loadConfig, parseApiKeys, startServer } from "@interlude/server";

const arg = (name) => process.argv[process.argv.indexOf(`--${name}`) + 1];
const [config, host, port] = [arg("config"), arg("host"), arg("port")];
const server = await startServer({
  config: loadConfig(config),
  host,
  port: Number(port),
  apiKeys: parseApiKeys(process.env.INTERLUDE_API_KEYS),
});
console.log(`listening ${server.url}`);
const stop = () => server.close().then(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
