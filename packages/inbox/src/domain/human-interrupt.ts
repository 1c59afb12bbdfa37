/** Agent Inbox payloads: recognising a `HumanInterrupt` and building its `HumanResponse`. */
import type { ActionRequest, HumanInterrupt, HumanResponse } from "../api/types";
import { asToolReview, reviewTitle, summarizeDecisions } from "./tool-review";

export type Action = "accept" | "edit" | "respond" | "ignore";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function isHumanInterrupt(value: unknown): value is HumanInterrupt {
  if (!isObject(value) || !isObject(value.action_request) || !isObject(value.config)) return false;
  return typeof value.action_request.action === "string";
}

/** LangGraph's prebuilt helpers send a list of one `HumanInterrupt`; accept both forms. */
export function asHumanInterrupt(value: unknown): HumanInterrupt | undefined {
  if (Array.isArray(value) && value.length === 1 && isHumanInterrupt(value[0])) return value[0];
  return isHumanInterrupt(value) ? value : undefined;
}

export function allowedActions(hi: HumanInterrupt): Action[] {
  const c = hi.config;
  const out: Action[] = [];
  if (c.allow_accept) out.push("accept");
  if (c.allow_edit) out.push("edit");
  if (c.allow_respond) out.push("respond");
  if (c.allow_ignore) out.push("ignore");
  return out;
}

export function buildResponse(
  hi: HumanInterrupt,
  action: Action,
  input?: Record<string, unknown> | string,
): HumanResponse {
  const request: ActionRequest = { action: hi.action_request.action, args: hi.action_request.args ?? {} };
  switch (action) {
    case "accept":
      return { type: "accept", args: request };
    case "edit":
      return {
        type: "edit",
        args: { action: request.action, args: (input as Record<string, unknown>) ?? request.args },
      };
    case "respond":
      return { type: "response", args: String(input ?? "") };
    case "ignore":
      return { type: "ignore", args: null };
  }
}

/** A one-line title for the list, whatever the payload. */
export function titleOf(value: unknown): string {
  const hi = asHumanInterrupt(value);
  if (hi) return hi.action_request.action;
  const review = asToolReview(value);
  if (review) return reviewTitle(review);
  if (typeof value === "string") return value;
  if (isObject(value)) {
    for (const key of ["question", "title", "message", "prompt", "action"]) {
      if (typeof value[key] === "string") return value[key] as string;
    }
  }
  return JSON.stringify(value) ?? String(value);
}

/** Describes an answer in a few words, for "answered by X with Y". */
export function summarizeAnswer(answer: unknown): string {
  const decisions = summarizeDecisions(answer);
  if (decisions !== undefined) return decisions;
  if (isObject(answer) && typeof answer.type === "string" && "args" in answer) {
    const type = answer.type as string;
    if (type === "response") return `response "${String(answer.args)}"`;
    if (type === "edit") return `edit ${JSON.stringify((answer.args as ActionRequest | null)?.args ?? answer.args)}`;
    return type;
  }
  return JSON.stringify(answer) ?? String(answer);
}
