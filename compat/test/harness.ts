/**
 * The compat harness: each scenario is graph code written once against the public names both
 * runtimes share, run on LangGraph.js 1.7.3 and on Interlude, and the two results compared.
 *
 * Scenarios restate behaviours that LangGraph.js's own test suite checks (the test they come
 * from is named in `from`). Where Interlude departs on purpose, the scenario says so with
 * `differs` (the section of COMPATIBILITY.md that explains why) and asserts that the results do
 * differ, so a departure that silently disappears, or one that is not documented, fails a test.
 */

import { readFileSync } from "node:fs";
import * as interlude from "@interlude/core";
import * as interludeChannels from "@interlude/core/channels";
import * as interludePrebuilt from "@interlude/core/prebuilt";
import * as interludePregel from "@interlude/core/pregel";
import * as interludeZod from "@interlude/core/zod";
import * as langgraph from "@langchain/langgraph";
import * as langgraphChannels from "@langchain/langgraph/channels";
import * as langgraphPrebuilt from "@langchain/langgraph/prebuilt";
import * as langgraphPregel from "@langchain/langgraph/pregel";
import * as langgraphZod from "@langchain/langgraph/zod";
import { describe, expect, it } from "vitest";
import { onDurableSaver } from "./durable-savers.js";

/** Either runtime's exports; scenarios destructure the names they need. */
export type Runtime = Record<string, any>;

export interface Scenario {
  /** The graph code, run once per runtime with that runtime's exports. */
  run(lib: Runtime): Promise<unknown>;
  /** The LangGraph.js test this behaviour comes from, e.g. "pregel.test.ts: should handle interrupts". */
  from?: string;
  /** Set when Interlude differs on purpose: the COMPATIBILITY.md section that says why. */
  differs?: string;
  /** Set when the behaviour under test is an error: both runtimes must throw one of the same name. */
  throws?: boolean;
}

/** Interlude as the scenarios see it: on a durable saver when COMPAT_SAVER names one (durable-savers.ts). */
const ours: Runtime = process.env.COMPAT_SAVER ? await onDurableSaver(interlude, process.env.COMPAT_SAVER) : interlude;

export const runtimes: ReadonlyArray<readonly [name: "langgraph" | "interlude", lib: Runtime]> = [
  ["langgraph", langgraph],
  ["interlude", ours],
];

/** Whether `lib` is the Interlude runtime of `runtimes`. */
export const isInterlude = (lib: Runtime): boolean => lib === ours;

/** Ids are random (uuids on one side, hashes on the other); everything else must match. */
export function normalise(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value ?? null, (key, v) => (key === "id" || key === "checkpoint_id" ? undefined : v)),
  );
}

/** The runtime's own prebuilt entry (`@interlude/core/prebuilt` or `@langchain/langgraph/prebuilt`). */
export const prebuiltOf = (lib: Runtime): Runtime => (isInterlude(lib) ? interludePrebuilt : langgraphPrebuilt);

/** The runtime's low-level entry: `Pregel` and `Channel` (`@interlude/core/pregel`, `@langchain/langgraph/pregel`). */
export const pregelOf = (lib: Runtime): Runtime => (isInterlude(lib) ? interludePregel : langgraphPregel);

/** The runtime's channels entry (`LastValue`, `EphemeralValue`, `Topic`, `BinaryOperatorAggregate`, ...). */
export const channelsOf = (lib: Runtime): Runtime => (isInterlude(lib) ? interludeChannels : langgraphChannels);

/**
 * The runtime's zod helpers (`withLangGraph`, `registry`, `MessagesZodState`, `MessagesZodMeta`):
 * Interlude's zod entry, or LangGraph.js's with the two it exports from its root (COMPATIBILITY.md).
 */
export const zodOf = (lib: Runtime): Runtime =>
  isInterlude(lib)
    ? interludeZod
    : { ...langgraphZod, MessagesZodState: langgraph.MessagesZodState, MessagesZodMeta: langgraph.MessagesZodMeta };

/** A state key holding a list that each write appends to. */
export const list = (lib: Runtime) =>
  lib.Annotation({ reducer: (a: unknown[], b: unknown[]) => a.concat(b), default: () => [] as unknown[] });

/** A run's config on thread `id`. */
export const thread = (id = "t") => ({ configurable: { thread_id: id } });

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** ["agent:1f0c…"] -> ["agent"]: task ids differ by design (uuids against hashes). */
export const cutIds = (namespace: string[]) => namespace.map((segment) => segment.split(":")[0]);

/** Runs `act` and gives its result ("undefined" spelled out, as JSON drops it), or the name of the error it threw. */
export function attempt(act: () => unknown): unknown {
  try {
    const value = act();
    return value === undefined ? "undefined" : value;
  } catch (error) {
    return { threw: error instanceof Error ? error.name : String(error) };
  }
}

/** A graph's whole history, newest first. */
export function historyOf(graph: any, config: unknown): Promise<any[]> {
  return collect(graph.getStateHistory(config));
}

/** An empty `InMemoryCache`: LangGraph.js keeps its cache classes in @langchain/langgraph-checkpoint, Interlude in its core. */
export async function inMemoryCache(lib: Runtime) {
  const Cache = lib.InMemoryCache ?? (await import("@langchain/langgraph-checkpoint")).InMemoryCache;
  return new Cache();
}

/**
 * A serialised LangChain constructor record that, if revived, would run code setting
 * `globalThis[markerKey].invoked`: a checkpoint holding it must be read back as plain data.
 */
export function forgedConstructorRecord(markerKey: string) {
  const forgedCallback = {
    lc: 2,
    type: "constructor",
    id: ["Uint8Array"],
    method: "constructor",
    args: [`globalThis.${markerKey}.invoked = true`],
    kwargs: {},
  };
  return { lc: 2, type: "constructor", id: ["Uint8Array"], method: "from", args: [[1], forgedCallback], kwargs: {} };
}

/** Iterates to the end or the error: the items, then the error's name if it threw. */
export async function drain(stream: AsyncIterable<unknown>, map: (item: any) => unknown = (item) => item) {
  const items: unknown[] = [];
  try {
    for await (const item of stream) items.push(map(item));
  } catch (error) {
    items.push({ threw: error instanceof Error ? error.name : String(error) });
  }
  return items;
}

/** A runtime's streams are untyped here (`Runtime` is either library): chunks are `any` unless the caller says. */
export async function collect<T = any>(stream: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const chunk of stream) out.push(chunk);
  return out;
}

/** The `#anchors` of COMPATIBILITY.md's headings, as GitHub makes them. */
const documented = new Set(
  readFileSync(new URL("../../COMPATIBILITY.md", import.meta.url), "utf8")
    .split("\n")
    .filter((line) => line.startsWith("#"))
    .map(
      (line) =>
        `#${line
          .replace(/^#+\s*/, "")
          .toLowerCase()
          .replace(/[^a-z0-9 -]/g, "")
          .replace(/ /g, "-")}`,
    ),
);

/** The message of the error `body` throws (its class may differ: Interlude's are typed), or what it returned. */
export async function refusal(body: () => unknown): Promise<{ refused: string } | { returned: unknown }> {
  try {
    return { returned: await body() };
  } catch (error) {
    return { refused: error instanceof Error ? error.message : String(error) };
  }
}

/** Runs a scenario on one runtime; an error becomes its result, compared like any other value. */
export async function outcome(scenario: Scenario, lib: Runtime): Promise<unknown> {
  try {
    return normalise(await scenario.run(lib));
  } catch (error) {
    return { threw: error instanceof Error ? error.name : String(error) };
  }
}

/**
 * Registers one `it` per scenario under a topic. `retry`: attempts again after a failure, for
 * scenarios where LangGraph.js itself is not reliable (say why where it is given).
 */
export function compare(
  topic: string,
  scenarios: Record<string, Scenario | Scenario["run"]>,
  { retry = 0 }: { retry?: number } = {},
): void {
  describe(`${topic}: the same code on LangGraph.js and on Interlude`, () => {
    for (const [name, entry] of Object.entries(scenarios)) {
      const scenario = typeof entry === "function" ? { run: entry } : entry;
      it(name, { retry }, async () => {
        const [theirs, ours] = await Promise.all(runtimes.map(([, lib]) => outcome(scenario, lib)));
        // A scenario that breaks on both runtimes alike must not pass by accident.
        if (!scenario.throws)
          expect(theirs, "LangGraph.js threw: the scenario itself is wrong").not.toHaveProperty("threw");
        // COMPAT_DEBUG=1 prints both results, to see what differs in a failing scenario.
        if (process.env.COMPAT_DEBUG) console.log(name, JSON.stringify({ theirs, ours }, null, 1));
        if (scenario.differs) {
          expect(documented, "the difference's section in COMPATIBILITY.md").toContain(scenario.differs);
          expect(ours, `documented difference: COMPATIBILITY.md ${scenario.differs}`).not.toEqual(theirs);
        } else {
          expect(ours).toEqual(theirs);
        }
      });
    }
  });
}

/**
 * A state of one `log` list and three nodes a, b and c that each take `ms` and add their name;
 * `started` is told as each starts. The caller adds the edges.
 */
export function slowNodes(lib: Runtime, ms: number, started: (name: string) => void = () => undefined) {
  const { Annotation, StateGraph } = lib;
  const log = Annotation({ reducer: (a: string[], b: string[]) => a.concat(b), default: () => [] as string[] });
  const node = (name: string) => async () => {
    started(name);
    await new Promise((resolve) => setTimeout(resolve, ms));
    return { log: [name] };
  };
  return new StateGraph(Annotation.Root({ log }))
    .addNode("a", node("a"))
    .addNode("b", node("b"))
    .addNode("c", node("c"));
}
