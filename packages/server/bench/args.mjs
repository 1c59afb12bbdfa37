/** The benchmarks' command-line options. */

/** The value after `--name` on the command line, else `fallback`. */
export function arg(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : process.argv[at + 1];
}
