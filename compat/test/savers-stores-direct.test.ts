/**
 * Checkpointers and stores used directly through their public API, as users and tools do
 * (`saver.put`, `putWrites`, `getTuple`, `get`, `list`, `deleteThread`; the store's `put`,
 * `get`, `search`, `delete`, `listNamespaces`, `batch`), not through a graph.
 *
 * Each saver scenario runs three times: on the root entry's `MemorySaver`, on the SQLite package's
 * `SqliteSaver.fromConnString(":memory:")` (`@langchain/langgraph-checkpoint-sqlite` against
 * `@interlude/checkpoint-sqlite`), and on the PostgreSQL package's `PostgresSaver`, in a schema
 * of its own on the test server (`@langchain/langgraph-checkpoint-postgres` against
 * `@interlude/checkpoint-postgres`). Checkpoints are built as a run builds them: the runtime's own
 * `emptyCheckpoint()` (its id and schema version), with values, and `newVersions` naming every
 * channel whose version is new. Ids are shown as names ("c0", "c1", ...) given in put order.
 */

import { isDeepStrictEqual } from "node:util";
import { HumanMessage } from "@langchain/core/messages";
import { compare, forgedConstructorRecord, isInterlude, type Runtime, type Scenario, sleep } from "./harness.js";
import { postgresSaverOf } from "./postgres-savers.js";
import { closeSaver } from "./saver-storage.js";

// --- Savers -------------------------------------------------------------------------------------

type Kind = "MemorySaver" | "SqliteSaver" | "PostgresSaver";
const KINDS: Kind[] = ["MemorySaver", "SqliteSaver", "PostgresSaver"];

/**
 * A fresh saver: the root entry's MemorySaver, the SQLite package's saver on an in-memory
 * database, or the PostgreSQL package's saver in a schema of its own on the test server.
 */
async function saverOf(lib: Runtime, kind: Kind): Promise<any> {
  if (kind === "MemorySaver") return new lib.MemorySaver();
  if (kind === "PostgresSaver") return postgresSaverOf(lib);
  const { SqliteSaver } = isInterlude(lib)
    ? await import("@interlude/checkpoint-sqlite")
    : await import("@langchain/langgraph-checkpoint-sqlite");
  return SqliteSaver.fromConnString(":memory:");
}

/** What a saver scenario gets: a fresh saver, checkpoints of its runtime, and names for their ids. */
interface SaverKit {
  saver: any;
  /** A new valid checkpoint with these values, each at `versions` (default 1), and a fixed `ts`. */
  checkpoint(values?: Record<string, unknown>, versions?: Record<string, number>): any;
  /** "c0", "c1", ... for the checkpoint ids made by `checkpoint()`, in that order. */
  name(id: string | undefined): string | undefined;
  /** A tuple's address, parent, values, metadata and writes, with ids named. */
  view(tuple: any): unknown;
  /** The names of the ids `list(config, options)` yields, in order. */
  listed(config: object, options?: object): Promise<Array<string | undefined>>;
}

function saverKit(lib: Runtime, saver: any): SaverKit {
  const names = new Map<string, string>();
  const name = (id: string | undefined) => (id === undefined ? undefined : (names.get(id) ?? `?${id}`));
  const address = (config: any) =>
    config && {
      thread: config.configurable?.thread_id,
      ns: config.configurable?.checkpoint_ns,
      at: name(config.configurable?.checkpoint_id),
      keys: Object.keys(config.configurable ?? {}).sort(),
    };
  return {
    saver,
    name,
    checkpoint(values = {}, versions) {
      const base = lib.emptyCheckpoint();
      names.set(base.id, `c${names.size}`);
      return {
        ...base,
        ts: "2024-04-19T17:19:07.952Z",
        channel_values: values,
        channel_versions: versions ?? Object.fromEntries(Object.keys(values).map((key) => [key, 1])),
        versions_seen: { "": { someChannel: 1 } },
      };
    },
    view: (tuple: any) =>
      tuple && {
        config: address(tuple.config),
        parent: address(tuple.parentConfig),
        values: tuple.checkpoint.channel_values,
        versions: tuple.checkpoint.channel_versions,
        seen: tuple.checkpoint.versions_seen,
        ts: tuple.checkpoint.ts,
        metadata: { ...tuple.metadata, parents: mapValues(tuple.metadata.parents ?? {}, name) },
        writes: tuple.pendingWrites,
      },
    async listed(config, options) {
      const out: Array<string | undefined> = [];
      for await (const tuple of saver.list(config, options)) out.push(name(tuple.checkpoint.id));
      return out;
    },
  };
}

/** Whether `body` rejected (the messages differ between runtimes; the refusal is what counts). */
const refuses = (body: () => Promise<unknown>) =>
  body().then(
    () => false,
    () => true,
  );

/** The error's name, or "ok". */
const outcomeOf = (body: () => Promise<unknown>) =>
  body().then(
    () => "ok",
    (error: Error) => error.name,
  );

/** What `body` returned, or the name of the error it threw. */
const attempt = (body: () => unknown) =>
  Promise.resolve()
    .then(body)
    .then(
      (returned) => ({ returned }),
      (error: Error) => ({ threw: error.name }),
    );

async function collectTuples(stream: AsyncIterable<any>) {
  const out: any[] = [];
  for await (const tuple of stream) out.push(tuple);
  return out;
}

interface SaverScenario {
  from?: string;
  differs?: string;
  /** Only on these kinds of saver (where LangGraph.js's others do something else: see its comment). */
  only?: Kind | readonly Kind[];
  /** What holds on one kind instead (where LangGraph.js's saver of that kind does otherwise than its others). */
  on?: Partial<Record<Kind, Pick<Scenario, "differs" | "throws">>>;
  run(kit: SaverKit): Promise<unknown>;
}

/** One scenario per saver kind: "<name> [MemorySaver]", "<name> [SqliteSaver]" and "<name> [PostgresSaver]". */
function onEachSaver(scenarios: Record<string, SaverScenario>) {
  const out: Record<string, Scenario> = {};
  for (const [name, scenario] of Object.entries(scenarios))
    for (const kind of scenario.only ? [scenario.only].flat() : KINDS)
      out[`${name} [${kind}]`] = {
        from: scenario.from,
        differs: scenario.differs,
        ...scenario.on?.[kind],
        async run(lib) {
          const saver = await saverOf(lib, kind);
          try {
            return await scenario.run(saverKit(lib, saver));
          } finally {
            await closeSaver(saver);
          }
        },
      };
  return out;
}

const mapValues = (record: Record<string, any>, f: (value: any) => unknown) =>
  Object.fromEntries(Object.entries(record).map(([key, value]) => [key, f(value)]));

const meta = (source: string, step: number, extra: object = {}) => ({ source, step, parents: {}, ...extra });
const at = (thread_id: string, checkpoint_ns = "", checkpoint_id?: string) => ({
  configurable:
    checkpoint_id === undefined ? { thread_id, checkpoint_ns } : { thread_id, checkpoint_ns, checkpoint_id },
});

/**
 * The spec's parent and child pair (test_utils.ts `parentAndChildCheckpointTuplesWithWrites`):
 * a parent with `animals: ["dog"]` and a pending send, a child that added a fish.
 */
async function parentAndChild(kit: SaverKit, thread: string, ns: string) {
  const { saver } = kit;
  const parent = kit.checkpoint({ animals: ["dog"] });
  const parentConfig = await saver.put(at(thread, ns), parent, meta("input", -1), { animals: 1 });
  await saver.putWrites(parentConfig, [["__pregel_tasks", ["add_fish"]]], "pending_sends_task");
  const child = kit.checkpoint({ animals: ["dog", "fish"] }, { animals: 2 });
  const childConfig = await saver.put(parentConfig, child, meta("loop", 0, { parents: { [ns]: parent.id } }), {
    animals: 2,
  });
  await saver.putWrites(childConfig, [["animals", ["dog", "fish"]]], "add_fish");
  return { parent, child, parentConfig, childConfig };
}

/** put and getTuple on odd thread ids; whether Object.prototype gained a property meanwhile. */
async function oddThreadIds(kit: SaverKit) {
  const { saver } = kit;
  const before = Object.getOwnPropertyNames(Object.prototype).length;
  const out: unknown[] = [];
  for (const thread_id of [1, "__proto__", "constructor", "prototype"]) {
    const config = { configurable: { thread_id, checkpoint_ns: "" } };
    const put = await refuses(() => saver.put(config, kit.checkpoint({ a: 1 }), meta("input", 0), { a: 1 }));
    const read = await saver.getTuple(config).then(
      (tuple: any) => tuple?.checkpoint.channel_values ?? "none",
      () => "refused",
    );
    out.push([thread_id, { put, read }]);
  }
  return { out, prototypeUnchanged: Object.getOwnPropertyNames(Object.prototype).length === before };
}

compare(
  "savers used directly",
  onEachSaver({
    "put returns the checkpoint's address, without the caller's other keys; getTuple and get give back what was put": {
      from: "checkpoint-validation put.ts: success cases (root and child namespaces)",
      async run(kit) {
        const { saver } = kit;
        const out: Record<string, unknown> = {};
        for (const ns of ["", "child"]) {
          const given = kit.checkpoint({ topic: "cats", count: 2 });
          const config = await saver.put(
            { configurable: { thread_id: "t", checkpoint_ns: ns, canary: "tweet" } },
            given,
            meta("input", -1),
            { topic: 1, count: 1 },
          );
          const tuple = await saver.getTuple(config);
          out[ns || "root"] = {
            returned: [
              config.configurable.thread_id,
              config.configurable.checkpoint_ns,
              kit.name(config.configurable.checkpoint_id),
            ],
            returnedKeys: Object.keys(config.configurable).sort(),
            tuple: kit.view(tuple),
            unaltered: isDeepStrictEqual(
              JSON.parse(JSON.stringify(tuple.checkpoint)),
              JSON.parse(JSON.stringify(given)),
            ),
            get: isDeepStrictEqual(await saver.get(config), tuple.checkpoint),
          };
        }
        const noNs = await saver.put({ configurable: { thread_id: "t2" } }, kit.checkpoint(), meta("input", -1), {});
        out.defaultNamespace = noNs.configurable.checkpoint_ns;
        out.getMissing = await saver.get(at("nobody"));
        return out;
      },
    },

    "put refuses a config without configurable or without thread_id": {
      from: "checkpoint-validation put.ts: failure cases",
      async run(kit) {
        const { saver } = kit;
        return {
          noConfigurable: await refuses(() => saver.put({}, kit.checkpoint(), meta("input", -1), {})),
          noThread: await refuses(() =>
            saver.put({ configurable: { checkpoint_ns: "" } }, kit.checkpoint(), meta("input", -1), {}),
          ),
        };
      },
    },

    "putWrites: the writes are read back with their checkpoint; no thread_id or no checkpoint_id is refused": {
      from: "checkpoint-validation put_writes.ts",
      async run(kit) {
        const { saver } = kit;
        const out: Record<string, unknown> = {};
        for (const ns of ["", "child"]) {
          const config = await saver.put(at("t", ns), kit.checkpoint(), meta("input", -1), {});
          await saver.putWrites(config, [["animals", "dog"]], "pet_task");
          out[ns || "root"] = kit.view(await saver.getTuple(config));
          out[`${ns || "root"} refused`] = {
            noThread: await refuses(() =>
              saver.putWrites(
                { configurable: { checkpoint_ns: ns, checkpoint_id: config.configurable.checkpoint_id } },
                [["animals", "dog"]],
                "pet_task",
              ),
            ),
            noCheckpoint: await refuses(() => saver.putWrites(at("t", ns), [["animals", "dog"]], "pet_task")),
          };
        }
        return out;
      },
    },

    "getTuple: a parent and its child with their writes, by id and newest; an unknown id or no thread_id gives undefined":
      {
        from: "checkpoint-validation get_tuple.ts: success and failure cases",
        async run(kit) {
          const { saver } = kit;
          const out: Record<string, unknown> = {};
          for (const ns of ["", "child"]) {
            const { parentConfig, childConfig } = await parentAndChild(kit, "t", ns);
            out[ns || "root"] = {
              parent: kit.view(await saver.getTuple(parentConfig)),
              child: kit.view(await saver.getTuple(childConfig)),
              newest: kit.view(await saver.getTuple(at("t", ns))),
              unknownId: await saver.getTuple(at("nobody", ns, kit.checkpoint().id)),
              noThread: await saver.getTuple({ configurable: { checkpoint_ns: ns } }),
            };
          }
          return out;
        },
      },

    "getTuple: a channel the child did not write (not in its newVersions) is read from its ancestor": {
      from: "checkpoint-validation get_tuple.ts: channels carried over from an ancestor checkpoint",
      async run(kit) {
        const { saver } = kit;
        const out: Record<string, unknown> = {};
        for (const ns of ["", "child"]) {
          const parent = kit.checkpoint({ messages: ["hi"], stepCount: 1 });
          const parentConfig = await saver.put(at("carry", ns), parent, meta("loop", 0), { messages: 1, stepCount: 1 });
          const child = kit.checkpoint({ messages: ["hi"], stepCount: 3 }, { messages: 1, stepCount: 2 });
          const childConfig = await saver.put(parentConfig, child, meta("loop", 1), { stepCount: 2 });
          out[ns || "root"] = {
            child: (await saver.getTuple(childConfig)).checkpoint.channel_values,
            newest: (await saver.getTuple(at("carry", ns))).checkpoint.channel_values,
            parent: (await saver.getTuple(parentConfig)).checkpoint.channel_values,
          };
        }
        return out;
      },
    },

    "list within one thread and namespace: newest first, with limit, before and a metadata filter": {
      from: "checkpoint-validation list.ts: argument combinations (thread_id and checkpoint_ns given)",
      async run(kit) {
        for (const thread of ["t1", "t2"]) for (const ns of ["", "child"]) await parentAndChild(kit, thread, ns);
        const out: Record<string, unknown> = {};
        for (const ns of ["", "child"]) {
          const scope = at("t1", ns);
          const [newest, oldest] = await collectTuples(kit.saver.list(scope));
          out[ns || "root"] = {
            all: await kit.listed(scope),
            limit1: await kit.listed(scope, { limit: 1 }),
            limit2: await kit.listed(scope, { limit: 2 }),
            beforeChild: await kit.listed(scope, { before: newest.config }),
            beforeParent: await kit.listed(scope, { before: oldest.config }),
            emptyFilter: await kit.listed(scope, { filter: {} }),
            input: await kit.listed(scope, { filter: { source: "input" } }),
            loop: await kit.listed(scope, { filter: { source: "loop" } }),
            loopBeforeChild: await kit.listed(scope, { filter: { source: "loop" }, before: newest.config }),
            tuples: [kit.view(newest), kit.view(oldest)],
          };
        }
        out.unknownThread = await kit.listed(at("nobody", ""));
        return out;
      },
    },

    "list across namespaces and threads: which checkpoints (as sets), with before, limit and filter": {
      from: "checkpoint-validation list.ts: argument combinations (thread_id or checkpoint_ns not given)",
      async run(kit) {
        for (const thread of ["t1", "t2"]) for (const ns of ["", "child"]) await parentAndChild(kit, thread, ns);
        const sorted = async (config: object, options?: object) => (await kit.listed(config, options)).sort();
        const tuples = await collectTuples(kit.saver.list({ configurable: { thread_id: "t1", checkpoint_ns: "" } }));
        const before = tuples[0].config; // t1's root child: older than every later put
        const t2 = await collectTuples(kit.saver.list({ configurable: { thread_id: "t2", checkpoint_ns: "child" } }));
        const counted = async (config: object, options: object) => (await kit.listed(config, options)).length;
        return {
          thread: await sorted({ configurable: { thread_id: "t1" } }),
          namespace: await sorted({ configurable: { checkpoint_ns: "child" } }),
          everything: await sorted({}),
          everythingLoop: await sorted({}, { filter: { source: "loop" } }),
          threadBefore: await sorted({ configurable: { thread_id: "t2" } }, { before }),
          threadBeforeItsOwn: await sorted({ configurable: { thread_id: "t2" } }, { before: t2[0].config }),
          everythingBefore: await sorted({ configurable: {} }, { before }),
          limited: await counted({ configurable: { thread_id: "t1" } }, { limit: 3 }),
          limitedEverything: await counted({}, { limit: 5, filter: { source: "input" } }),
        };
      },
    },

    "list filters on any metadata key, across threads": {
      from: "checkpoint-sqlite checkpoints.test.ts: should filter on arbitrary metadata keys",
      async run(kit) {
        const { saver } = kit;
        const put = (thread: string, tenant_id: string, env: string) =>
          saver.put(
            { configurable: { thread_id: thread } },
            kit.checkpoint(),
            meta("update", 0, { tenant_id, env }),
            {},
          );
        await put("1", "acme", "prod");
        await put("2", "acme", "dev");
        await put("3", "globex", "prod");
        const threads = async (filter: object) => {
          const ids: string[] = [];
          for await (const tuple of saver.list({}, { filter })) ids.push(tuple.config.configurable.thread_id);
          return ids.sort();
        };
        return {
          acme: await threads({ tenant_id: "acme" }),
          prod: await threads({ env: "prod" }),
          both: await threads({ tenant_id: "acme", env: "prod" }),
          missing: await threads({ tenant_id: "missing" }),
          step: await threads({ step: 0, source: "update" }),
        };
      },
    },

    "deleteThread removes the thread's checkpoints and writes in every namespace, and leaves other threads": {
      from: "checkpoint-validation delete_thread.ts; checkpoints.test.ts: should delete thread",
      async run(kit) {
        const { saver } = kit;
        for (const thread of ["1", "2"]) for (const ns of ["", "child"]) await parentAndChild(kit, thread, ns);
        const before = await kit.listed({ configurable: { thread_id: "1" } });
        await saver.deleteThread("1");
        await saver.deleteThread("never-written");
        return {
          before: before.length,
          root: await saver.getTuple(at("1", "")),
          child: await saver.getTuple(at("1", "child")),
          listed: await kit.listed({ configurable: { thread_id: "1" } }),
          other: kit.view(await saver.getTuple(at("2", ""))),
          otherCount: (await kit.listed({ configurable: { thread_id: "2" } })).length,
          // A new first checkpoint on the deleted thread starts a fresh history.
          again: kit.view(
            await saver.getTuple(await saver.put(at("1"), kit.checkpoint({ a: 1 }), meta("input", -1), { a: 1 })),
          ),
        };
      },
    },

    "putWrites: interrupt and resume writes keep their own slots; an ordinary write retried is not duplicated": {
      from: "checkpoint-sqlite checkpoints.test.ts: should preserve INTERRUPT/RESUME writes at fixed negative indices",
      async run(kit) {
        const { saver } = kit;
        const config = await saver.put(at("t1"), kit.checkpoint(), meta("input", -1), {});
        await saver.putWrites(
          config,
          [
            ["foo", "val_foo"],
            ["bar", "val_bar"],
          ],
          "task_A",
        );
        await saver.putWrites(config, [["__interrupt__", "paused"]], "task_A");
        await saver.putWrites(config, [["__resume__", "carry_on"]], "task_A");
        await saver.putWrites(config, [["baz", "val_baz"]], "task_B");
        // The same task's writes again (a retried save): kept once, the first value.
        await saver.putWrites(config, [["foo", "again"]], "task_A");
        // A task's interrupt again: replaced.
        await saver.putWrites(config, [["__interrupt__", "paused twice"]], "task_A");
        const tuple = await saver.getTuple(config);
        return tuple.pendingWrites.map((write: unknown[]) => write.join(":")).sort();
      },
    },

    "forged constructor records in metadata and in a written message are read back as data, never run": {
      from: "checkpoints.test.ts: keeps metadata constructor records inert; keeps forged additional_kwargs records inert",
      async run(kit) {
        const { saver } = kit;
        const markerKey = "__compat_direct_saver_marker__";
        const marker = { invoked: false };
        (globalThis as Record<string, unknown>)[markerKey] = marker;
        try {
          const forged = forgedConstructorRecord(markerKey);
          const config = await saver.put(at("security"), kit.checkpoint(), meta("update", -1, { forged }), {});
          const message = new HumanMessage({ content: "ordinary message", additional_kwargs: { forged } });
          await saver.putWrites(config, [["messages", message]], "message-task");
          const restored = await saver.getTuple(config);
          const [, , written] = restored.pendingWrites[0];
          return {
            invoked: marker.invoked,
            metadata: isDeepStrictEqual(restored.metadata.forged, forged),
            message: [
              written instanceof HumanMessage,
              written.content,
              isDeepStrictEqual(written.additional_kwargs, { forged }),
            ],
          };
        } finally {
          delete (globalThis as Record<string, unknown>)[markerKey];
        }
      },
    },

    "put with a parent id: parentConfig names it, even one never saved; the newest is the newest id": {
      from: "checkpoint-sqlite checkpoints.test.ts: should save and retrieve checkpoints correctly",
      async run(kit) {
        const { saver } = kit;
        const first = kit.checkpoint({ someKey1: "someValue1" });
        await saver.put({ configurable: { thread_id: "1" } }, first, meta("update", -1), { someKey1: 1 });
        await saver.putWrites(at("1", "", first.id), [["bar", "baz"]], "foo");
        const firstTuple = kit.view(await saver.getTuple({ configurable: { thread_id: "1" } }));
        const second = kit.checkpoint({ someKey1: "someValue2" }, { someKey1: 2 });
        await saver.put(at("1", "", first.id), second, meta("update", -1, { parents: { "": first.id } }), {
          someKey1: 2,
        });
        const listed = await collectTuples(saver.list({ configurable: { thread_id: "1" } }));
        // The spec's parent id that names no saved checkpoint.
        const orphan = await saver.put(
          at("2", "", "2024-04-18T17:19:07.952Z"),
          kit.checkpoint(),
          meta("update", -1),
          {},
        );
        return {
          orphan: kit.view(await saver.getTuple(orphan)),
          firstTuple,
          newest: kit.view(await saver.getTuple({ configurable: { thread_id: "1" } })),
          listed: listed.map((tuple) => kit.name(tuple.checkpoint.id)),
          ts: listed.map((tuple) => tuple.checkpoint.ts),
        };
      },
    },

    // LangGraph.js's MemorySaver lists a thread namespace by namespace (and every thread thread
    // by thread), each newest first; its SqliteSaver and PostgresSaver, like Interlude's savers,
    // newest first across them all. Compared on those two.
    "list of a whole thread (no namespace given), and of every thread: newest first across them": {
      from: "checkpoint-validation list.ts (order of tuples when thread_id or checkpoint_ns is not given)",
      only: ["SqliteSaver", "PostgresSaver"],
      async run(kit) {
        for (const thread of ["t1", "t2"]) for (const ns of ["", "child"]) await parentAndChild(kit, thread, ns);
        return { thread: await kit.listed({ configurable: { thread_id: "t1" } }), everything: await kit.listed({}) };
      },
    },

    // LangGraph.js's MemorySaver compares filter values with ===, so an object never matches
    // (a bug: its SqliteSaver and PostgresSaver, and Interlude's savers, compare the JSON).
    // Compared on those two.
    "list with a filter on an object-valued metadata key (parents)": {
      from: "checkpoint-sqlite checkpoints.test.ts: should save and retrieve checkpoints correctly (filter with parents)",
      only: ["SqliteSaver", "PostgresSaver"],
      async run(kit) {
        const { saver } = kit;
        const first = kit.checkpoint();
        await saver.put(at("1"), first, meta("update", -1), {});
        await saver.put(at("1", "", first.id), kit.checkpoint(), meta("update", -1, { parents: { "": first.id } }), {});
        return kit.listed(at("1"), { filter: { source: "update", step: -1, parents: { "": first.id } } });
      },
    },

    // LangGraph.js's SqliteSaver takes limit 0 for no limit (`if (limit)`: a bug; its MemorySaver
    // and PostgresSaver yield nothing, as Interlude's savers do). Compared on those two.
    "list with limit 0 yields nothing": {
      from: "checkpoint-validation list.ts (limit)",
      only: ["MemorySaver", "PostgresSaver"],
      async run(kit) {
        await parentAndChild(kit, "t", "");
        return kit.listed(at("t"), { limit: 0 });
      },
    },

    "put twice with the same checkpoint id: the second replaces the first": {
      from: "MemorySaver.put / SqliteSaver.put (INSERT OR REPLACE)",
      async run(kit) {
        const { saver } = kit;
        const given = kit.checkpoint({ n: 1 });
        await saver.put(at("t"), given, meta("input", -1), { n: 1 });
        const again = { ...given, channel_values: { n: 2 }, channel_versions: { n: 2 } };
        const refused = await refuses(() => saver.put(at("t"), again, meta("update", 0), { n: 2 }));
        const tuple = await saver.getTuple(at("t"));
        return {
          refused,
          values: tuple.checkpoint.channel_values,
          metadata: tuple.metadata,
          count: (await kit.listed(at("t"))).length,
        };
      },
    },

    "a thread id that is a number, __proto__, constructor or prototype is kept as any other": {
      from: "memory-pollution.test.ts (on the SqliteSaver and PostgresSaver, which have no such guard)",
      only: ["SqliteSaver", "PostgresSaver"],
      run: oddThreadIds,
    },
  }),
);

// --- The root entry's checkpoint helpers -------------------------------------------------------

compare("checkpoint helpers used directly", {
  "copyCheckpoint copies the maps: changing the copy leaves the original": {
    from: "checkpoints.test.ts: Base should deep copy (copyCheckpoint)",
    async run({ copyCheckpoint, emptyCheckpoint }) {
      const original = {
        ...emptyCheckpoint(),
        channel_values: { a: 1 },
        channel_versions: { a: 1 },
        versions_seen: { node: { a: 1 } },
      };
      const copy = copyCheckpoint(original);
      copy.channel_values.b = 2;
      copy.channel_versions.a = 2;
      copy.versions_seen.node.a = 2;
      copy.versions_seen.other = {};
      return {
        original: [original.channel_values, original.channel_versions, original.versions_seen],
        copy: [copy.channel_values, copy.channel_versions, copy.versions_seen],
        sameId: copy.id === original.id && copy.ts === original.ts && copy.v === original.v,
      };
    },
  },

  "emptyCheckpoint: a new id each time, in creation order, and empty maps": {
    async run({ emptyCheckpoint }) {
      const made = Array.from({ length: 20 }, () => emptyCheckpoint());
      const ids = made.map((checkpoint) => checkpoint.id);
      return {
        keys: Object.keys(made[0]).sort(),
        maps: [made[0].channel_values, made[0].channel_versions, made[0].versions_seen],
        distinct: new Set(ids).size,
        ordered: ids.every((id, i) => i === 0 || ids[i - 1] < id),
        ts: !Number.isNaN(Date.parse(made[0].ts)),
      };
    },
  },
});

// --- Stores -------------------------------------------------------------------------------------

/** An item without its times (checked on their own): namespace, key, value. */
const plain = (item: any) => item && [item.namespace, item.key, item.value];

/** Puts `{ data: "value_<i>" }` under each namespace, as `id_<i>`. */
async function fill(store: any, namespaces: string[][]) {
  for (let i = 0; i < namespaces.length; i += 1) await store.put(namespaces[i], `id_${i}`, { data: `value_${i}` });
}

compare("InMemoryStore used directly", {
  "get gives the item (value, key, namespace, createdAt and updatedAt as Dates); a missing key gives null": {
    from: "store.test.ts: InMemoryStore should implement get method",
    async run({ InMemoryStore }) {
      const store = new InMemoryStore();
      await store.put(["test"], "123", { value: 1 });
      const item = await store.get(["test"], "123");
      return {
        item: plain(item),
        keys: Object.keys(item).sort(),
        dates: [item.createdAt instanceof Date, item.updatedAt instanceof Date],
        sameTime: item.createdAt.getTime() === item.updatedAt.getTime(),
        missingKey: await store.get(["test"], "456"),
        missingNamespace: await store.get(["other"], "123"),
      };
    },
  },

  "search: items under a prefix of whole labels, oldest first, 10 by default; limit and offset page them": {
    from: "store.test.ts: InMemoryStore should implement search method",
    async run({ InMemoryStore }) {
      const store = new InMemoryStore();
      for (let i = 0; i < 12; i += 1) await store.put(["docs", i % 2 ? "odd" : "even"], `k${i}`, { i });
      await store.put(["docsx"], "other", { i: -1 });
      const keys = (items: any[]) => items.map((item) => item.key);
      return {
        byDefault: keys(await store.search(["docs"])),
        odd: keys(await store.search(["docs", "odd"])),
        page: keys(await store.search(["docs"], { limit: 3, offset: 4 })),
        pastTheEnd: keys(await store.search(["docs"], { offset: 20 })),
        partialLabel: keys(await store.search(["doc"])),
        everything: keys(await store.search([], { limit: 20 })),
        shape: (await store.search(["docs", "odd"], { limit: 1 })).map((item: any) => [
          ...plain(item),
          Object.keys(item).sort(),
          item.createdAt instanceof Date,
        ]),
      };
    },
  },

  "put again replaces the value in place: createdAt kept, updatedAt later, position in search kept": {
    from: "store.test.ts: InMemoryStore should implement put method",
    async run({ InMemoryStore }) {
      const store = new InMemoryStore();
      await store.put(["test"], "a", { v: 1 });
      await store.put(["test"], "b", { v: 2 });
      const first = await store.get(["test"], "a");
      const created = first.createdAt.getTime();
      await sleep(20);
      await store.put(["test"], "a", { v: 3, extra: true });
      const again = await store.get(["test"], "a");
      return {
        item: plain(again),
        createdKept: again.createdAt.getTime() === created,
        updatedLater: again.updatedAt.getTime() > created,
        order: (await store.search(["test"])).map((item: any) => [item.key, item.value]),
      };
    },
  },

  "delete removes the item; deleting a missing key is harmless": {
    from: "store.test.ts: InMemoryStore should implement delete method",
    async run({ InMemoryStore }) {
      const store = new InMemoryStore();
      await store.put(["test"], "123", { value: 1 });
      await store.put(["test"], "456", { value: 2 });
      await store.delete(["test"], "123");
      await store.delete(["test"], "never");
      return {
        deleted: await store.get(["test"], "123"),
        kept: plain(await store.get(["test"], "456")),
        search: (await store.search(["test"])).map(plain),
      };
    },
  },

  "listNamespaces: prefix, suffix, both, maxDepth, limit and offset": {
    from: "namespace.test.ts: should handle basic namespace operations; store.test.ts: listNamespaces tests",
    async run({ InMemoryStore }) {
      const store = new InMemoryStore();
      await fill(store, [
        ["a", "b", "c"],
        ["a", "b", "d", "e"],
        ["a", "b", "d", "i"],
        ["a", "b", "f"],
        ["a", "c", "f"],
        ["b", "a", "f"],
        ["users", "123"],
        ["users", "456", "settings"],
        ["admin", "users", "789"],
      ]);
      return {
        all: await store.listNamespaces(),
        allEmptyOptions: await store.listNamespaces({}),
        prefix: await store.listNamespaces({ prefix: ["a", "b"] }),
        suffix: await store.listNamespaces({ suffix: ["f"] }),
        both: await store.listNamespaces({ prefix: ["a"], suffix: ["f"] }),
        prefixDepth: await store.listNamespaces({ prefix: ["a", "b"], maxDepth: 3 }),
        depth2: await store.listNamespaces({ maxDepth: 2 }),
        limit: await store.listNamespaces({ prefix: ["a", "b"], limit: 2 }),
        offset: await store.listNamespaces({ prefix: ["a", "b"], offset: 2 }),
        limitOffset: await store.listNamespaces({ limit: 2, offset: 1 }),
        combined: await store.listNamespaces({ prefix: ["a"], suffix: ["f"], maxDepth: 2 }),
        none: await store.listNamespaces({ prefix: ["non", "existent"] }),
      };
    },
  },

  "listNamespaces with wildcards in prefix and suffix": {
    from: "namespace.test.ts: should handle wildcards in namespace operations",
    async run({ InMemoryStore }) {
      const store = new InMemoryStore();
      await fill(store, [
        ["users", "123"],
        ["users", "456"],
        ["users", "789", "settings"],
        ["admin", "users", "789"],
        ["guests", "123"],
        ["guests", "456", "preferences"],
      ]);
      const out: Record<string, unknown> = {
        users: await store.listNamespaces({ prefix: ["users", "*"] }),
        preferences: await store.listNamespaces({ suffix: ["*", "preferences"] }),
        none: await store.listNamespaces({ prefix: ["*", "users"], suffix: ["*", "settings"] }),
      };
      await store.put(["admin", "users", "settings", "789"], "foo", { data: "some_val" });
      out.after = await store.listNamespaces({ prefix: ["*", "users"], suffix: ["settings", "*"] });
      return out;
    },
  },

  "listNamespaces pages 20 namespaces; maxDepth merges namespaces cut to the same labels; an empty store has none": {
    from: "namespace.test.ts: pagination, maxDepth, empty store",
    async run({ InMemoryStore }) {
      const empty = await new InMemoryStore().listNamespaces({});
      const store = new InMemoryStore();
      await fill(
        store,
        Array.from({ length: 20 }, (_, i) => ["namespace", `sub_${String(i).padStart(2, "0")}`]),
      );
      const pages = [];
      for (const offset of [0, 5, 15, 18])
        pages.push(await store.listNamespaces({ prefix: ["namespace"], limit: 5, offset }));
      const deep = new InMemoryStore();
      await fill(deep, [
        ["a", "b", "c", "d"],
        ["a", "b", "c", "e"],
        ["a", "b", "f"],
        ["a", "g"],
        ["h", "i", "j", "k"],
      ]);
      return { empty, pages, depth: await deep.listNamespaces({ maxDepth: 2 }) };
    },
  },

  "invalid namespaces are refused with InvalidNamespaceError; a 'langgraph' root only through batch": {
    from: "namespace.test.ts: should block invalid namespaces; store.test.ts: Should block invalid namespaces in put",
    async run({ InMemoryStore }) {
      const store = new InMemoryStore();
      const doc = { foo: "bar" };
      const refused = {
        empty: await outcomeOf(() => store.put([], "foo", doc)),
        period: await outcomeOf(() => store.put(["the", "thing.about"], "foo", doc)),
        emptyLabel: await outcomeOf(() => store.put(["some", "fun", ""], "foo", doc)),
        colon: await outcomeOf(() => store.put(["a:b"], "foo", doc)),
        reservedRoot: await outcomeOf(() => store.put(["langgraph", "foo"], "bar", doc)),
        notAString: await outcomeOf(() => store.put(["a", 1 as unknown as string], "foo", doc)),
      };
      await store.put(["foo", "langgraph", "foo"], "bar", doc);
      const inner = {
        get: plain(await store.get(["foo", "langgraph", "foo"], "bar")),
        search: (await store.search(["foo", "langgraph", "foo"])).map(plain),
      };
      await store.delete(["foo", "langgraph", "foo"], "bar");
      await store.batch([{ namespace: ["langgraph", "foo"], key: "bar", value: doc }]);
      const reserved = {
        get: plain(await store.get(["langgraph", "foo"], "bar")),
        search: (await store.search(["langgraph", "foo"])).map(plain),
      };
      await store.delete(["langgraph", "foo"], "bar");
      return {
        refused,
        inner,
        innerDeleted: await store.get(["foo", "langgraph", "foo"], "bar"),
        reserved,
        reservedDeleted: await store.get(["langgraph", "foo"], "bar"),
      };
    },
  },

  "batch: results in order; reads see the store as it was before the batch's writes; the last write of a key wins": {
    from: "store.test.ts: BaseStore / InMemoryStore batch",
    async run({ InMemoryStore }) {
      const store = new InMemoryStore();
      await store.put(["a"], "old", { v: 0 });
      const results = await store.batch([
        { namespace: ["a"], key: "new", value: { v: 1 } },
        { namespace: ["a"], key: "new" },
        { namespacePrefix: ["a"], limit: 10, offset: 0 },
        { namespace: ["a"], key: "old", value: null },
        { namespace: ["a"], key: "new", value: { v: 2 } },
        { matchConditions: [{ matchType: "prefix", path: ["a"] }], limit: 10, offset: 0 },
      ]);
      return {
        results: results.map((result: any) =>
          Array.isArray(result) ? result.map((r: any) => (Array.isArray(r) ? r : plain(r))) : (plain(result) ?? result),
        ),
        after: (await store.search(["a"])).map(plain),
      };
    },
  },

  "search filters: equality and the operators $eq, $ne, $gt, $gte, $lt, $lte, $in, $nin": {
    from: "store.test.ts: should pass correct options to search method (filter); store utils compareValues",
    async run({ InMemoryStore }) {
      const store = new InMemoryStore();
      await store.put(["items"], "a", { kind: "note", rank: 1 });
      await store.put(["items"], "b", { kind: "task", rank: 5 });
      await store.put(["items"], "c", { kind: "note", rank: 9, done: true });
      await store.put(["items"], "d", { kind: "memo", rank: "5" });
      const keys = async (filter: object) => (await store.search(["items"], { filter })).map((item: any) => item.key);
      return {
        equal: await keys({ kind: "note" }),
        two: await keys({ kind: "note", done: true }),
        missingField: await keys({ colour: "red" }),
        eq: await keys({ rank: { $eq: 5 } }),
        ne: await keys({ kind: { $ne: "note" } }),
        gt: await keys({ rank: { $gt: 1 } }),
        gte: await keys({ rank: { $gte: 5 } }),
        lt: await keys({ rank: { $lt: 5 } }),
        lte: await keys({ rank: { $lte: 5 } }),
        range: await keys({ rank: { $gt: 1, $lt: 9 } }),
        in: await keys({ kind: { $in: ["task", "memo"] } }),
        nin: await keys({ kind: { $nin: ["task", "memo"] } }),
      };
    },
  },

  "a store of one's own implements batch only: get, search, put, delete and listNamespaces send these operations": {
    from: "store.test.ts: BaseStore should pass correct options / should use default options / listNamespaces options",
    async run({ BaseStore }) {
      const seen: unknown[] = [];
      class RecordingStore extends BaseStore {
        async batch(operations: any[]) {
          seen.push(...operations);
          return operations.map((op) => ("namespacePrefix" in op || "matchConditions" in op ? [] : null));
        }
      }
      const store = new RecordingStore();
      const answers = [
        await store.get(["test"], "123"),
        await store.search(["test"]),
        await store.search(["test"], { limit: 20, offset: 5, filter: { key: "value" } }),
        await store.put(["test"], "123", { value: 2 }),
        await store.delete(["test"], "123"),
        await store.listNamespaces(),
        await store.listNamespaces({ prefix: ["a"], suffix: ["c"], maxDepth: 2, limit: 5, offset: 1 }),
      ];
      // undefined fields (a search's query, a put's index) are left out as JSON leaves them.
      return { seen: JSON.parse(JSON.stringify(seen)), answers };
    },
  },

  "AsyncBatchedStore sends the operations made together to the store as one batch": {
    from: "store.test.ts: AsyncBatchedStore should batch concurrent calls",
    async run({ AsyncBatchedStore, BaseStore }) {
      const calls: unknown[] = [];
      class RecordingStore extends BaseStore {
        async batch(operations: any[]) {
          calls.push(JSON.parse(JSON.stringify(operations)));
          return operations.map((op) =>
            op.namespacePrefix.map((label: string) => ({ key: label, value: { value: 1 } })),
          );
        }
      }
      const store = new AsyncBatchedStore(new RecordingStore());
      await store.start();
      try {
        const results = await Promise.all([store.search(["a", "b"]), store.search(["c", "d"])]);
        return { results, calls };
      } finally {
        await store.stop();
      }
    },
  },

  "a put's index fields": {
    differs: "#store-no-semantic-search",
    async run({ InMemoryStore }) {
      const store = new InMemoryStore();
      const unindexed = await outcomeOf(() => store.put(["docs"], "a", { text: "cats" }, false));
      const indexed = await outcomeOf(() => store.put(["docs"], "b", { text: "dogs" }, ["text"]));
      return { unindexed, indexed, keys: (await store.search(["docs"])).map((item: any) => item.key) };
    },
  },

  "a store created with an embeddings index": {
    differs: "#store-no-semantic-search",
    async run({ InMemoryStore }) {
      const embeddings = {
        embedDocuments: async (texts: string[]) => texts.map((text) => [text.length, 1]),
        embedQuery: async (text: string) => [text.length, 1],
      };
      return outcomeOf(async () => new InMemoryStore({ index: { dims: 2, embeddings } }));
    },
  },
});

// --- What Interlude does differently (COMPATIBILITY.md), and the rest of the helpers ---------------

const SAVER_DIRECTLY = "#a-saver-used-directly";
const STORE_DIRECTLY = "#the-inmemorystore-used-directly";

compare(
  "savers used directly: the documented differences",
  onEachSaver({
    // LangGraph's own tests call put with 3 arguments: every value the checkpoint carries is kept.
    // LangGraph.js's PostgresSaver throws a TypeError instead (it reads the missing argument).
    "put without newVersions keeps the checkpoint's values": {
      from: "checkpoints.test.ts: MemorySaver should save and retrieve checkpoints correctly (put with 3 arguments)",
      on: { PostgresSaver: { differs: SAVER_DIRECTLY, throws: true } },
      async run(kit) {
        const { saver } = kit;
        const omitted = await saver.put(at("a"), kit.checkpoint({ someKey1: "someValue1" }), meta("update", -1));
        return (await saver.getTuple(omitted)).checkpoint.channel_values;
      },
    },

    // LangGraph.js: its MemorySaver and SqliteSaver store the whole checkpoint whatever
    // newVersions says (its spec skips "should only store channel_values that have changed" for
    // them). Interlude: only the channels in newVersions are stored (base.ts), so a put with {}
    // reads back {}, and `partial` loses baz; so does LangGraph.js's PostgresSaver.
    "put with {} or some of the channels in newVersions keeps the checkpoint's values": {
      from: "checkpoint-validation put.ts: should only store channel_values that have changed",
      differs: SAVER_DIRECTLY,
      on: { PostgresSaver: { differs: undefined } },
      async run(kit) {
        const { saver } = kit;
        const empty = await saver.put(at("b"), kit.checkpoint({ foo: "bar", baz: "qux" }), meta("input", -1), {});
        const partial = await saver.put(at("c"), kit.checkpoint({ foo: "bar", baz: "qux" }), meta("input", -1), {
          foo: 1,
        });
        return {
          empty: (await saver.getTuple(empty)).checkpoint.channel_values,
          partial: (await saver.getTuple(partial)).checkpoint.channel_values,
        };
      },
    },

    // LangGraph.js numbers channel versions 1, 2, 3 (getNextVersion), so two forks of one
    // checkpoint carry the same version with different values, and its savers keep each
    // checkpoint's own values. Interlude keys stored values by (thread, namespace, channel,
    // version), expecting versions unique across forks as its own runs make them: the second
    // fork's list replaces the first's (MemorySaver: the scalar too; SqliteSaver keeps a small
    // scalar inline in the checkpoint row, so only the list is shared).
    "two forks of one checkpoint with the same channel version keep their own values": {
      differs: SAVER_DIRECTLY,
      async run(kit) {
        const { saver } = kit;
        const root = await saver.put(at("fork"), kit.checkpoint({ n: 0, items: [] }), meta("input", -1), {
          n: 1,
          items: 1,
        });
        const fork = (side: string, source: string) =>
          saver.put(root, kit.checkpoint({ n: side, items: [side] }, { n: 2, items: 2 }), meta(source, 0), {
            n: 2,
            items: 2,
          });
        const left = await fork("left", "loop");
        const right = await fork("right", "fork");
        return {
          left: (await saver.getTuple(left)).checkpoint.channel_values,
          right: (await saver.getTuple(right)).checkpoint.channel_values,
        };
      },
    },

    // LangGraph.js: both savers give a checkpoint's pending writes sorted by task id, then slot
    // (reserved channels first: __interrupt__ is -3): task_A:__interrupt__, task_A:foo,
    // task_A:bar, task_B:baz. Interlude: in the order they were first written (task_B first).
    "pending writes come back sorted by task id, then slot": {
      differs: SAVER_DIRECTLY,
      from: "checkpoint-sqlite checkpoints.test.ts: INTERRUPT/RESUME writes (order of pendingWrites)",
      async run(kit) {
        const { saver } = kit;
        const config = await saver.put(at("t1"), kit.checkpoint(), meta("input", -1), {});
        await saver.putWrites(config, [["baz", "val_baz"]], "task_B");
        await saver.putWrites(
          config,
          [
            ["foo", "val_foo"],
            ["bar", "val_bar"],
          ],
          "task_A",
        );
        await saver.putWrites(config, [["__interrupt__", "paused"]], "task_A");
        return (await saver.getTuple(config)).pendingWrites.map((write: unknown[]) => write.slice(0, 2).join(":"));
      },
    },

    // LangGraph.js: getTuple with a checkpoint_id answers with the caller's own config as its
    // `config` (here without checkpoint_ns, with the caller's `tenant`). Interlude: with the
    // checkpoint's address (thread_id, checkpoint_ns "", checkpoint_id), as when no id is given,
    // and so does LangGraph.js's PostgresSaver.
    "getTuple by id: the tuple's config is the one given": {
      differs: SAVER_DIRECTLY,
      on: { PostgresSaver: { differs: undefined } },
      from: "MemorySaver.getTuple / SqliteSaver.getTuple (the tuple's config when checkpoint_id is given)",
      async run(kit) {
        const { saver } = kit;
        const { parent } = await parentAndChild(kit, "t", "");
        const tuple = await saver.getTuple({
          configurable: { thread_id: "t", checkpoint_id: parent.id, tenant: "acme" },
        });
        return { keys: Object.keys(tuple.config.configurable).sort(), ns: tuple.config.configurable.checkpoint_ns };
      },
    },

    // LangGraph.js's MemorySaver refuses (put and getTuple) a thread_id that is not a string or
    // is __proto__, constructor or prototype (its guard against prototype pollution). Interlude's
    // savers keep them as any other thread (as LangGraph.js's SqliteSaver does: the same scenario
    // in the first block); neither runtime changes Object.prototype.
    "a thread id that is a number, __proto__, constructor or prototype": {
      differs: SAVER_DIRECTLY,
      from: "memory-pollution.test.ts: rejects %s as thread_id; rejects non-string thread_id",
      only: "MemorySaver",
      run: oddThreadIds,
    },
  }),
);

compare("checkpoint helpers used directly: the rest", {
  // copyCheckpoint gives {} for a missing channel_values, channel_versions or versions_seen.
  "copyCheckpoint of a checkpoint without its maps gives empty ones": {
    from: "checkpoints.test.ts: copyCheckpoint defaults missing channel maps to empty objects",
    async run({ copyCheckpoint }) {
      const partial = { v: 4, id: "1ef0", ts: "2024-04-19T17:19:07.952Z" };
      return attempt(() => copyCheckpoint(partial));
    },
  },

  // LangGraph.js: emptyCheckpoint().v is 4 (its checkpoint schema); Interlude's is 1 (its own
  // CHECKPOINT_VERSION, checkpoint/types.ts).
  "emptyCheckpoint's schema version": {
    differs: SAVER_DIRECTLY,
    async run({ emptyCheckpoint }) {
      return emptyCheckpoint().v;
    },
  },

  // BaseCheckpointSaver.toJSON() gives "[ClassName]", so a config holding a saver stringifies
  // without walking its backend (a pg Pool's timers, a client that refers to itself).
  "JSON.stringify of a config holding a saver": {
    from: "checkpoints.test.ts: BaseCheckpointSaver.toJSON avoids backend client traversal",
    async run({ BaseCheckpointSaver, MemorySaver }) {
      class TestSaver extends BaseCheckpointSaver {
        backend: Record<string, unknown> = { name: "pool" };
        async getTuple() {
          return undefined;
        }
        async *list() {}
        async put(config: unknown) {
          return config;
        }
        async putWrites() {}
        async deleteThread() {}
      }
      const saver = new TestSaver();
      saver.backend.self = saver.backend;
      return {
        own: await attempt(() => JSON.stringify({ configurable: { checkpointer: saver } })),
        memory: JSON.stringify({ configurable: { checkpointer: new MemorySaver() } }),
      };
    },
  },
});

compare("InMemoryStore used directly: the documented differences", {
  // LangGraph.js keeps a namespace whose last item was deleted, and makes one for a delete in a
  // namespace never written to: listNamespaces gives [emptied], [kept], [never, written] (likely
  // a bug). Interlude lists only namespaces that hold items: [kept].
  "a namespace emptied by delete, or only ever deleted from, is not listed": {
    differs: STORE_DIRECTLY,
    from: "store.test.ts: InMemoryStore should implement delete method / listNamespaces",
    async run({ InMemoryStore }) {
      const store = new InMemoryStore();
      await store.put(["kept"], "k", { v: 1 });
      await store.put(["emptied"], "k", { v: 1 });
      await store.delete(["emptied"], "k");
      await store.delete(["never", "written"], "k");
      return store.listNamespaces();
    },
  },

  // LangGraph.js sorts the namespaces joined with ":" by localeCompare (case-insensitive first,
  // punctuation by the locale: 10, 9, a_b, a-b, [a, b], alpha, Alpha, beta, Zed). Interlude
  // sorts them joined with "." by UTF-16 code unit (10, 9, Alpha, Zed, a-b, [a, b], a_b,
  // alpha, beta).
  "listNamespaces sorts labels of mixed case and punctuation": {
    differs: STORE_DIRECTLY,
    async run({ InMemoryStore }) {
      const store = new InMemoryStore();
      await fill(store, [["beta"], ["Alpha"], ["alpha"], ["a-b"], ["a_b"], ["a", "b"], ["Zed"], ["10"], ["9"]]);
      return store.listNamespaces();
    },
  },

  // LangGraph.js compares a filter value with === (and $eq, $in with === too), so an array or
  // object never matches, even an equal one. Interlude compares them deeply: "a" matches.
  "a filter on an array or object value matches an equal value": {
    differs: STORE_DIRECTLY,
    async run({ InMemoryStore }) {
      const store = new InMemoryStore();
      await store.put(["items"], "a", { tags: ["x", "y"], owner: { id: 1 } });
      const keys = async (filter: object) => (await store.search(["items"], { filter })).map((item: any) => item.key);
      return {
        array: await keys({ tags: ["x", "y"] }),
        object: await keys({ owner: { id: 1 } }),
        eqArray: await keys({ tags: { $eq: ["x", "y"] } }),
        inObject: await keys({ owner: { $in: [{ id: 1 }] } }),
      };
    },
  },

  // LangGraph.js keeps the object given to put and gives it back from get, so changing either
  // changes the store ({ list: [1, 2, 3] }; likely unintended). Interlude keeps and gives copies.
  "a value changed after put, or an item changed after get, does not change the store": {
    differs: STORE_DIRECTLY,
    async run({ InMemoryStore }) {
      const store = new InMemoryStore();
      const value = { list: [1] };
      await store.put(["test"], "k", value);
      value.list.push(2);
      const got = await store.get(["test"], "k");
      got.value.list.push(3);
      return (await store.get(["test"], "k")).value;
    },
  },

  // LangGraph.js stores any value. Interlude refuses one that is not a plain object with
  // UnsupportedStoreOptionError (its message says a stored value is an object).
  "values that are not plain objects (a string, an array, a number)": {
    differs: STORE_DIRECTLY,
    async run({ InMemoryStore }) {
      const store = new InMemoryStore();
      return {
        string: await outcomeOf(() => store.put(["v"], "s", "text" as any)),
        array: await outcomeOf(() => store.put(["v"], "a", [1, 2] as any)),
        number: await outcomeOf(() => store.put(["v"], "n", 3 as any)),
      };
    },
  },

  // get([], key) throws InvalidNamespaceError; search([]) gives all items; delete([], key) is refused.
  "get, search and delete with an empty namespace": {
    async run({ InMemoryStore }) {
      const store = new InMemoryStore();
      await store.put(["a"], "k", { v: 1 });
      return {
        get: await outcomeOf(() => store.get([], "k")),
        search: await outcomeOf(() => store.search([])),
        delete: await outcomeOf(() => store.delete([], "k")),
      };
    },
  },
});
