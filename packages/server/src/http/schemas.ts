/**
 * Request bodies and query strings, validated before anything runs. Unknown fields are
 * dropped; a wrong one is answered with 422 naming it (see validate.ts).
 */
import { z } from "zod";
import { ASSISTANT_SORT_FIELDS } from "../store/assistants.js";

/**
 * A JSON object, kept as parsed: z.record copies keys into a new object, where a `__proto__`
 * key sets the prototype instead of being kept (dropped on create, and as a filter matching all).
 */
const json = z.custom<Record<string, unknown>>(
  (v) => typeof v === "object" && v !== null && !Array.isArray(v),
  "must be a JSON object",
);
const breakpoints = z.union([z.literal("*"), z.array(z.string())]);
const STREAM_MODES = [
  "values",
  "messages",
  "messages-tuple",
  "updates",
  "debug",
  "custom",
  "tasks",
  "checkpoints",
  "events",
  "tools",
  "lifecycle",
] as const;
const streamMode = z.string().superRefine((mode, issues) => {
  if (!(STREAM_MODES as readonly string[]).includes(mode))
    issues.addIssue({
      code: "custom",
      message: `Unknown stream mode "${mode}"; use one of ${STREAM_MODES.join(", ")}.`,
    });
}) as unknown as z.ZodType<(typeof STREAM_MODES)[number]>;
/** A field of LangGraph Server's run request that this server does not honour: refused (422), never dropped. */
const refused = (why: string) =>
  z
    .unknown()
    .refine((v) => v === undefined || v === null, why)
    .optional();
const page = {
  limit: z.number().int().min(0).max(10_000).optional(),
  offset: z.number().int().min(0).max(1_000_000_000).optional(),
};

export const RunBody = z.object({
  assistant_id: z.string().min(1),
  input: z.unknown().optional(),
  command: z
    .object({
      resume: z.unknown().optional(),
      update: z.unknown().optional(),
      goto: z.unknown().optional(),
      reason: z.string().max(2000).optional(),
    })
    .nullish(),
  config: z
    .object({
      configurable: json.optional(),
      recursion_limit: z.number().int().positive().optional(),
      tags: z.array(z.string()).optional(),
    })
    .passthrough()
    .nullish(),
  context: z.unknown().optional(),
  metadata: json.nullish(),
  stream_mode: z.union([streamMode, z.array(streamMode)]).nullish(),
  stream_subgraphs: z.boolean().nullish(),
  stream_resumable: z.boolean().nullish(),
  interrupt_before: breakpoints.nullish(),
  interrupt_after: breakpoints.nullish(),
  checkpoint_id: z.string().min(1).nullish(),
  checkpoint: z.object({ checkpoint_id: z.string().optional() }).passthrough().nullish(),
  durability: z.enum(["sync", "async", "exit"]).nullish(),
  /** Deprecated by the SDK in favour of `durability`: false is "exit". */
  checkpoint_during: z.boolean().nullish(),
  multitask_strategy: z.enum(["reject", "interrupt", "rollback", "enqueue"]).nullish(),
  if_not_exists: z.enum(["create", "reject"]).nullish(),
  on_disconnect: z.enum(["cancel", "continue"]).nullish(),
  on_completion: z.enum(["delete", "keep"]).nullish(),
  webhook: refused("Webhooks are not sent by this server; follow the run with runs.join or runs.joinStream instead."),
  after_seconds: refused("Delayed runs are not supported by this server; create the run when it should start."),
  /** Always so here: an answer to an interrupt that is not waiting is refused (UNKNOWN_INTERRUPT). */
  strict_resume: z
    .boolean()
    .nullish()
    .refine(
      (strict) => strict !== false,
      "This server always refuses an answer to an interrupt that is not waiting (strict resume): leave strict_resume out or set it to true.",
    ),
  feedback_keys: refused("LangSmith feedback URLs are not issued by this server; leave feedback_keys out."),
  langsmith_tracer: refused(
    "Runs are not traced to LangSmith by this server; trace inside the graph with LangChain callbacks instead.",
  ),
  /** Interlude: stop the run (status `timeout`) if it executes longer than this. */
  timeout_seconds: z
    .number()
    .positive()
    .max(31 * 24 * 3600)
    .nullish(),
});
export type RunBody = z.infer<typeof RunBody>;

/** `POST /runs/batch`: stateless background runs. */
export const RunBatchBody = z.array(RunBody).min(1).max(100);

/** A thread's TTL in minutes, as the SDK sends it (threads/ttl.ts); at most 100 years. */
const threadTtl = z
  .object({ ttl: z.number().positive().max(52_560_000), strategy: z.enum(["delete", "keep_latest"]).nullish() })
  .nullish();

export const ThreadCreateBody = z.object({
  thread_id: z.string().min(1).max(200).nullish(),
  ttl: threadTtl,
  metadata: json.nullish(),
  if_exists: z.enum(["raise", "do_nothing"]).nullish(),
  supersteps: z
    .array(
      z.object({
        updates: z.array(
          z.object({
            values: z.unknown().optional(),
            // Written as the node's Command would be (LangGraph Server: the command wins over values).
            command: z
              .object({
                update: z.unknown().optional(),
                goto: z.unknown().optional(),
                resume: refused(
                  "A superstep writes state as its node would; it answers no interrupt. Leave resume out, and answer with a run's command.resume once the thread is made.",
                ),
              })
              .nullish(),
            as_node: z.string(),
          }),
        ),
      }),
    )
    .nullish(),
});

/** Fields to cut a response to (select.ts checks the names against the resource's). */
const select = z.array(z.string()).nullish();

export const ThreadSearchBody = z.object({
  select,
  metadata: json.nullish(),
  extract: refused("Extracting values (extract) is not done by this server: read each thread's values instead."),
  values: json.nullish(),
  ids: z.array(z.string()).nullish(),
  status: z.enum(["idle", "busy", "interrupted", "error"]).nullish(),
  sort_by: z.enum(["thread_id", "status", "created_at", "updated_at", "state_updated_at"]).nullish(),
  sort_order: z.enum(["asc", "desc"]).nullish(),
  ...page,
});

export const ThreadPruneBody = z.object({
  thread_ids: z.array(z.string().min(1)).max(1000),
  strategy: z.enum(["delete", "keep_latest"]).nullish(),
});

export const ThreadPatchBody = z.object({ metadata: json.nullish(), ttl: threadTtl });

export const StateUpdateBody = z.object({
  values: z.unknown().optional(),
  as_node: z.string().min(1).nullish(),
  checkpoint_id: z.string().min(1).nullish(),
  checkpoint: z.object({ checkpoint_id: z.string().optional() }).passthrough().nullish(),
});

export const StateAtBody = z.object({
  select,
  // Without an id, the newest checkpoint (of the namespace): RemoteGraph's getState sends `{ thread_id }` alone.
  checkpoint: z
    .object({ checkpoint_id: z.string().min(1).optional(), checkpoint_ns: z.string().optional() })
    .passthrough(),
  subgraphs: z.boolean().nullish(),
});

export const HistoryBody = z.object({
  select,
  limit: z.number().int().min(1).max(1000).nullish(),
  before: z
    .union([
      z.string(),
      z.object({ configurable: json.optional(), checkpoint_id: z.string().optional() }).passthrough(),
    ])
    .nullish(),
  metadata: json.nullish(),
  checkpoint: z
    .object({ checkpoint_id: z.string().optional(), checkpoint_ns: z.string().optional() })
    .passthrough()
    .nullish(),
});

export const AssistantCreateBody = z.object({
  graph_id: z.string().min(1),
  assistant_id: z.string().min(1).nullish(),
  config: json.nullish(),
  context: z.unknown().optional(),
  metadata: json.nullish(),
  if_exists: z.enum(["raise", "do_nothing"]).nullish(),
  name: z.string().nullish(),
  description: z.string().nullish(),
});

export const AssistantPatchBody = AssistantCreateBody.partial().omit({ assistant_id: true, if_exists: true });

export const AssistantVersionsBody = z.object({ metadata: json.nullish(), ...page });

export const AssistantLatestBody = z.object({ version: z.number().int().positive() });

export const AssistantSearchBody = z.object({
  select,
  graph_id: z.string().nullish(),
  name: z.string().nullish(),
  metadata: json.nullish(),
  sort_by: z.enum(ASSISTANT_SORT_FIELDS).nullish(),
  sort_order: z.enum(["asc", "desc"]).nullish(),
  ...page,
});

/** A yes/no query parameter, as the SDK sends one: `true`/`false` (JSON) or `1`/`0`. */
const flag = z.enum(["0", "1", "true", "false"]).optional();

/** Whether a `flag` query parameter says yes. */
export function isOn(value: z.infer<typeof flag>): boolean {
  return value === "1" || value === "true";
}

/** `DELETE /assistants/:id`: `delete_threads` also deletes the threads whose `metadata.assistant_id` is it. */
export const AssistantDeleteQuery = z.object({ delete_threads: flag });

/**
 * `GET /assistants/:id/graph`: `xray` draws subgraphs inside their nodes, `true` all the way
 * down, a number to that depth (the SDK sends `xray: true` as "true", `xray: 2` as "2").
 */
export const GraphQuery = z.object({
  xray: z
    .string()
    .regex(/^(true|false|\d{1,4})$/, "must be true, false or a depth (a whole number)")
    .transform((x) => (x === "true" ? true : x === "false" ? false : Number(x)))
    .optional(),
});

/** Why the thread stream modes this server does not serve are refused. */
const THREAD_STREAM_REFUSALS = new Map([
  [
    "lifecycle",
    "The thread stream's lifecycle events (runs starting and ending on the thread) are not sent by this server; stream run_modes and read a run's status with runs.get.",
  ],
  [
    "state_update",
    "State edits made outside runs are not streamed by this server; stream run_modes and read the state with threads.getState.",
  ],
]);

/**
 * `GET /threads/:id/stream`'s `stream_mode` (the SDK's ThreadStreamMode, repeatable): `run_modes`
 * (the default), the events of the thread's run in the modes that run streams. LangGraph Server's
 * two other thread modes are refused, not dropped.
 */
export const ThreadStreamModes = z.array(
  z.string().superRefine((mode, issues) => {
    if (mode === "run_modes") return;
    const why =
      THREAD_STREAM_REFUSALS.get(mode) ??
      `Unknown thread stream mode "${mode}"; this stream takes run_modes (the run's own modes).`;
    issues.addIssue({ code: "custom", message: why });
  }),
);

/** `GET .../runs/:run_id/join`: `cancel_on_disconnect` cancels the run when the client goes away first. */
export const JoinQuery = z.object({ cancel_on_disconnect: flag });

/**
 * `GET .../runs/:id/stream`: the SDK's `streamNamespaces` filter is not applied, so refused.
 * `checkpoint_id` is taken (useStream sends the thread's head when it rejoins after a reload) and
 * the run is replayed whole, or from `Last-Event-ID` (API.md).
 */
export const JoinStreamQuery = JoinQuery.extend({
  namespace: refused(
    "A joined stream is not filtered by subgraph namespace (streamNamespaces) here: leave it out and read each event's namespace from its name (updates|node:task).",
  ),
  checkpoint_id: z.string().optional(),
});

/** `GET /threads/:id`: `include` names extra fields; none is served (see the route). */
export const ThreadGetQuery = z.object({
  include: refused(
    "No extra thread fields (include) are served by this server: a thread's TTL is set with threads.create or threads.update and is not read back; leave include out.",
  ),
});

/** Largest offset a listing takes (beyond it there is nothing to list, and SQL would be given 1e+21). */
const MAX_OFFSET = 1_000_000_000;

export const InboxQuery = z.object({
  graph_id: z.string().min(1).optional(),
  thread_id: z.string().min(1).optional(),
  q: z.string().max(500).optional(),
  /** At most 100 years. */
  min_age_seconds: z.coerce.number().min(0).max(3_153_600_000).optional(),
  limit: z.coerce.number().int().min(1).max(500).optional(),
  offset: z.coerce.number().int().min(0).max(MAX_OFFSET).optional(),
});

/** `POST .../runs/:run_id/cancel` and `POST /runs/cancel`. */
export const CancelQuery = z.object({
  wait: z.enum(["0", "1", "true", "false"]).optional(),
  action: z.enum(["interrupt", "rollback"]).optional(),
  reason: refused("A cancel reason (taken, for steering) is not recorded by this server; leave reason out."),
});

/** Runs to cancel: some of one thread's, or every thread's in a status. */
export const RunsCancelBody = z
  .object({
    thread_id: z.string().min(1).nullish(),
    run_ids: z.array(z.string().min(1)).min(1).max(1000).nullish(),
    status: z.enum(["pending", "running", "all"]).nullish(),
  })
  .refine((b) => (b.run_ids ? !!b.thread_id && !b.status : !!b.status && !b.thread_id), {
    message: "give thread_id with run_ids, or a status (pending, running or all) alone",
  });

export const RunListQuery = z.object({
  limit: z.coerce.number().int().min(0).max(10_000).optional(),
  offset: z.coerce.number().int().min(0).max(MAX_OFFSET).optional(),
  status: z.enum(["pending", "running", "error", "success", "timeout", "interrupted"]).optional(),
});

export const HistoryQuery = z.object({ limit: z.coerce.number().int().min(1).max(1000).optional() });

/** `GET /ok`: `check_db=1` (or `true`) also asks the database. */
export const HealthQuery = z.object({ check_db: z.enum(["0", "1", "true", "false"]).optional() });

/** `GET /metrics`: Prometheus's text (the default) or one JSON document. */
export const MetricsQuery = z.object({ format: z.enum(["prometheus", "json"]).default("prometheus") });

export const InboxAnswerBody = z.object({
  thread_id: z.string().min(1),
  interrupt_id: z.string().regex(/^[0-9a-f]{32}$/, "must be an interrupt id (32 hex characters)"),
  answer: z.unknown(),
  reason: z.string().max(2000).optional(),
});

/** Store namespace labels: neither empty nor containing "." (GET joins them with "."). */
const labels = z.array(
  z
    .string()
    .min(1)
    .regex(/^[^.]*$/, "must not contain '.'"),
);
const namespace = labels.min(1);
const noTtl = refused("Store items do not expire on this server; leave ttl out.");

export const StorePutBody = z.object({
  namespace,
  key: z.string().min(1),
  value: json,
  index: z
    .union([z.literal(false), z.array(z.string())])
    .nullish()
    .refine(
      (index) => !Array.isArray(index),
      "Store items are not indexed for semantic search on this server; leave index out (or false).",
    ),
  ttl: noTtl,
});

export const StoreGetQuery = z.object({
  namespace: z.string().min(1),
  key: z.string().min(1),
  refresh_ttl: z.enum(["true", "false"]).optional(),
});

export const StoreDeleteBody = z.object({ namespace, key: z.string().min(1) });

export const StoreSearchBody = z.object({
  namespace_prefix: labels.nullish(),
  filter: json.nullish(),
  query: refused("Semantic search is not done by this server: search by namespace and filter instead."),
  refresh_ttl: z.boolean().nullish(),
  ...page,
});

export const StoreNamespacesBody = z.object({
  prefix: namespace.nullish(),
  suffix: namespace.nullish(),
  max_depth: z.number().int().positive().nullish(),
  ...page,
});

/** The run fields a cron's runs are made from, as the SDK's crons.create sends them. */
const cronRun = RunBody.pick({
  input: true,
  config: true,
  context: true,
  metadata: true,
  interrupt_before: true,
  interrupt_after: true,
  durability: true,
  checkpoint_during: true,
  stream_mode: true,
  stream_subgraphs: true,
  stream_resumable: true,
  webhook: true,
  timeout_seconds: true,
}).shape;

/** The fields a cron keeps as the payload of its runs (`webhook` is refused, so never among them). */
export const CRON_PAYLOAD_FIELDS: readonly string[] = [...Object.keys(cronRun), "multitask_strategy"];

const isoTime = z.string().refine((t) => !Number.isNaN(Date.parse(t)), "must be an ISO 8601 date-time");

/** `POST /runs/crons` and `POST /threads/:id/runs/crons`. */
export const CronCreateBody = z.object({
  assistant_id: z.string().min(1),
  schedule: z.string().min(1).max(200),
  timezone: z.string().min(1).max(100).nullish(),
  end_time: isoTime.nullish(),
  enabled: z.boolean().nullish(),
  on_run_completed: z.enum(["delete", "keep"]).nullish(),
  multitask_strategy: RunBody.shape.multitask_strategy,
  ...cronRun,
});

export type CronCreateBody = z.infer<typeof CronCreateBody>;

/** `PATCH /runs/crons/:id`: what is given changes; `end_time: null` clears it. */
export const CronUpdateBody = z.object({
  schedule: z.string().min(1).max(200).optional(),
  timezone: z.string().min(1).max(100).nullish(),
  end_time: isoTime.nullish(),
  enabled: z.boolean().nullish(),
  on_run_completed: z.enum(["delete", "keep"]).nullish(),
  ...cronRun,
});
export type CronUpdateBody = z.infer<typeof CronUpdateBody>;

const cronFilters = {
  assistant_id: z.string().min(1).nullish(),
  thread_id: z.string().min(1).nullish(),
  metadata: json.nullish(),
};

export const CronSearchBody = z.object({
  ...cronFilters,
  enabled: z.boolean().nullish(),
  ...page,
  sort_by: z
    .enum(["cron_id", "assistant_id", "thread_id", "next_run_date", "end_time", "created_at", "updated_at"])
    .nullish(),
  sort_order: z.enum(["asc", "desc"]).nullish(),
  select,
});

export const CronCountBody = z.object({ ...cronFilters });
