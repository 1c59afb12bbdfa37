/**
 * The packages as a user gets them: each publishable package is packed with `npm pack`, the
 * tarballs are installed into a fresh project, a user's file is type-checked by a strict
 * TypeScript (`skipLibCheck: false`, so every published .d.ts must compile with only the
 * package's declared dependencies) and run. Needs the packages built (`npm test` builds).
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const published = ["interlude", "checkpoint-sqlite", "checkpoint-postgres", "checkpoint-redis", "inbox", "server"];
const work = mkdtempSync(join(tmpdir(), "interlude-packaging-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function run(command: string, args: string[], cwd: string): string {
  try {
    return execFileSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(" ")} failed in ${cwd}:\n${stdout ?? ""}${stderr ?? ""}`);
  }
}

it("every package packs, installs into a fresh project, type-checks strictly and runs", { timeout: 300_000 }, () => {
  const tarballs = join(work, "tarballs");
  mkdirSync(tarballs);
  const workspaces = published.flatMap((name) => ["-w", `packages/${name}`]);
  run("npm", ["pack", "--silent", "--pack-destination", tarballs, ...workspaces], root);
  const files = readdirSync(tarballs).filter((f) => f.endsWith(".tgz"));
  expect(files).toHaveLength(published.length);

  const project = join(work, "project");
  cpSync(join(root, "test/packaging/fixture"), project, { recursive: true });
  const rootRequire = createRequire(join(root, "package.json"));
  const version = (name: string) => rootRequire(`${name}/package.json`).version as string;
  const dependencies = Object.fromEntries(
    files.map((f) => [
      f.replace(/^interlude-/, "@interlude/").replace(/-0\.\d+\.\d+\.tgz$/, ""),
      `file:${join(tarballs, f)}`,
    ]),
  );
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({
      name: "a-user-project",
      private: true,
      type: "module",
      dependencies,
      devDependencies: { "@types/node": version("@types/node"), typescript: version("typescript") },
    }),
  );
  writeFileSync(
    join(project, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        skipLibCheck: false,
        outDir: "out",
        types: ["node"],
      },
      files: ["main.ts"],
    }),
  );
  // From the npm cache that `npm ci` filled; install scripts are skipped because building
  // better-sqlite3 from source takes minutes here: its addon is copied from the workspace below.
  run(
    "npm",
    ["install", "--prefer-offline", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"],
    project,
  );
  const addon = "build/Release/better_sqlite3.node";
  const target = join(project, "node_modules/better-sqlite3", addon);
  rmSync(dirname(target), { recursive: true, force: true });
  cpSync(dirname(join(dirname(rootRequire.resolve("better-sqlite3/package.json")), addon)), dirname(target), {
    recursive: true,
  });

  run(join(project, "node_modules/.bin/tsc"), ["-p", project], project);
  copyFileSync(join(project, "package.json"), join(project, "out/package.json"));
  const output = run("node", [join(project, "out/main.js"), join(project, "threads.sqlite")], project);
  expect(JSON.parse(output)).toEqual({
    asked: { question: "Approve?", plan: "refund" },
    done: { plan: "refund", approved: true },
    server: true,
    kit: true,
    entries: true,
  });
});
