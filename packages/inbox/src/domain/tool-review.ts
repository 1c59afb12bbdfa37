/**
 * LangChain v1 `humanInTheLoopMiddleware` payloads (also Interlude's prebuilt review node):
 * reading `{ actionRequests, reviewConfigs }` as one reviewable call each, and building the
 * `{ decisions }` answer from the reviewer's choice per call.
 */
import type { AnswerIssue, DecisionType, JsonSchema, ToolDecision, ToolReviewRequest } from "../api/types";
import { withValues } from "./schema-form";

/** One tool call under review, its request and config paired. */
export interface ReviewedCall {
  name: string;
  args: Record<string, unknown>;
  description?: string;
  allowed: DecisionType[];
  argsSchema?: JsonSchema;
}

/** What the reviewer chose for one call, before it becomes a `ToolDecision`. */
export type Draft =
  | { type: "approve" }
  | { type: "edit"; args: Record<string, unknown> }
  | { type: "reject"; message: string };

const DECISIONS: readonly DecisionType[] = ["approve", "edit", "reject"];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function isRequest(value: unknown): value is ToolReviewRequest {
  if (!isObject(value) || !Array.isArray(value.actionRequests) || !Array.isArray(value.reviewConfigs)) return false;
  return (
    value.actionRequests.every((a) => isObject(a) && typeof a.name === "string" && isObject(a.args)) &&
    value.reviewConfigs.every(
      (c) => isObject(c) && typeof c.actionName === "string" && Array.isArray(c.allowedDecisions),
    )
  );
}

/** The calls of a tool-review request, or undefined when `value` is not one. */
export function asToolReview(value: unknown): ReviewedCall[] | undefined {
  if (!isRequest(value) || value.actionRequests.length === 0) return undefined;
  return value.actionRequests.map((request, i) => {
    // The middleware builds both lists in step; by name only if a producer did not.
    const byIndex = value.reviewConfigs[i];
    const config =
      byIndex?.actionName === request.name ? byIndex : value.reviewConfigs.find((c) => c.actionName === request.name);
    const call: ReviewedCall = {
      name: request.name,
      args: request.args,
      allowed: DECISIONS.filter((d) => config?.allowedDecisions.includes(d)),
    };
    if (typeof request.description === "string") call.description = request.description;
    if (isObject(config?.argsSchema)) call.argsSchema = config.argsSchema;
    return call;
  });
}

/** The `{ decisions }` answer, or the indexes of the calls still undecided. */
export function decisionsFrom(
  calls: readonly ReviewedCall[],
  drafts: ReadonlyArray<Draft | undefined>,
): { decisions: ToolDecision[] } | { undecided: number[] } {
  const undecided = calls.flatMap((_, i) => (drafts[i] ? [] : [i]));
  if (undecided.length) return { undecided };
  const decisions = calls.map((call, i): ToolDecision => {
    const d = drafts[i]!;
    if (d.type === "edit") return { type: "edit", editedAction: { name: call.name, args: d.args } };
    if (d.type === "reject")
      return d.message.trim() ? { type: "reject", message: d.message.trim() } : { type: "reject" };
    return { type: "approve" };
  });
  return { decisions };
}

/**
 * The edit form's schema, opened on the current arguments: the tool's own schema when the
 * request carries one, else a single JSON box that must hold an object.
 */
export function editSchema(call: ReviewedCall): JsonSchema {
  const schema: JsonSchema = call.argsSchema ?? { type: "object" };
  return withValues({ title: "Arguments", ...schema }, call.args);
}

const segment = (p: PropertyKey | { key: PropertyKey }) => String(typeof p === "object" && p !== null ? p.key : p);

/**
 * The server's issues sorted by the call they concern (`decisions.<i>...`), with paths into
 * an edit's arguments made relative to them, so the edit form can place them on its fields.
 */
export function issuesByCall(
  issues: readonly AnswerIssue[],
  count: number,
): { byCall: AnswerIssue[][]; other: AnswerIssue[] } {
  const byCall: AnswerIssue[][] = Array.from({ length: count }, () => []);
  const other: AnswerIssue[] = [];
  for (const issue of issues) {
    const path = (issue.path ?? []).map(segment);
    const index = path[0] === "decisions" ? Number(path[1]) : Number.NaN;
    if (!Number.isInteger(index) || index < 0 || index >= count) {
      other.push(issue);
      continue;
    }
    const inArgs = path[2] === "editedAction" && path[3] === "args";
    byCall[index]!.push({ message: issue.message, path: inArgs ? path.slice(4) : [] });
  }
  return { byCall, other };
}

const names = (calls: readonly { name: string }[]) => calls.map((c) => c.name).join(", ");

export function reviewTitle(calls: readonly ReviewedCall[]): string {
  return calls.length === 1 ? `Review ${calls[0]!.name}` : `Review ${calls.length} tool calls: ${names(calls)}`;
}

/** `{ decisions }` in a few words ("approve, edit {…}, reject"), or undefined for another answer. */
export function summarizeDecisions(answer: unknown): string | undefined {
  if (!isObject(answer) || !Array.isArray(answer.decisions)) return undefined;
  return answer.decisions
    .map((d: ToolDecision) => {
      if (d?.type === "edit") return `edit ${JSON.stringify(d.editedAction?.args)}`;
      if (d?.type === "reject" && d.message) return `reject "${d.message}"`;
      return String(d?.type);
    })
    .join(", ");
}
