/** Row <-> record conversion: JSON columns are text in both databases. */

import type { Row } from "./db.js";
import type { AnswerRecord, AssistantRecord, PendingInterrupt, RunRecord, ThreadRecord } from "./records.js";

export const json = (value: unknown): string | null => (value === undefined ? null : JSON.stringify(value));
const parse = (text: unknown): any => (text === null || text === undefined ? null : JSON.parse(String(text)));

export function assistantOf(row: Row): AssistantRecord {
  return {
    assistant_id: String(row.assistant_id),
    graph_id: String(row.graph_id),
    name: String(row.name),
    description: (row.description as string | null) ?? null,
    config: parse(row.config) ?? {},
    context: parse(row.context) ?? {},
    metadata: parse(row.metadata) ?? {},
    version: Number(row.version),
    created_at: String(row.created_at),
    updated_at: String(row.updated_at),
  };
}

export function threadOf(row: Row): ThreadRecord {
  return {
    thread_id: String(row.thread_id),
    created_at: String(row.created_at),
    updated_at: String(row.updated_at),
    state_updated_at: String(row.state_updated_at),
    metadata: parse(row.metadata) ?? {},
    status: row.status as ThreadRecord["status"],
    values: parse(row.values),
    interrupts: parse(row.interrupts) ?? {},
    error: parse(row.error),
    config: parse(row.config) ?? {},
    graph_id: (row.graph_id as string | null) ?? null,
    assistant_id: (row.assistant_id as string | null) ?? null,
  };
}

export function runOf(row: Row): RunRecord {
  return {
    run_id: String(row.run_id),
    thread_id: String(row.thread_id),
    assistant_id: String(row.assistant_id),
    created_at: String(row.created_at),
    updated_at: String(row.updated_at),
    status: row.status as RunRecord["status"],
    metadata: parse(row.metadata) ?? {},
    multitask_strategy: row.multitask_strategy as RunRecord["multitask_strategy"],
    kwargs: parse(row.kwargs) ?? {},
    identity: String(row.identity),
    owner: (row.owner as string | null) ?? null,
    attempt: Number(row.attempt),
    error: parse(row.error),
  };
}

export function pendingOf(row: Row): PendingInterrupt {
  return {
    thread_id: String(row.thread_id),
    interrupt_id: String(row.interrupt_id),
    graph_id: (row.graph_id as string | null) ?? null,
    assistant_id: (row.assistant_id as string | null) ?? null,
    value: parse(row.value),
    response_schema: parse(row.response_schema),
    ns: parse(row.ns) ?? [],
    created_at: String(row.created_at),
    deadline_at: (row.deadline_at as string | null) ?? null,
  };
}

export function answerOf(row: Row): AnswerRecord {
  return {
    thread_id: String(row.thread_id),
    interrupt_id: String(row.interrupt_id),
    by: String(row.by),
    answer: parse(row.answer),
    at: String(row.at),
    run_id: (row.run_id as string | null) ?? null,
    state: row.state as AnswerRecord["state"],
  };
}
