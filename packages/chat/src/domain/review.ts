/**
 * A tool call waiting for review, in LangChain v1 humanInTheLoopMiddleware's protocol (what
 * `createToolReviewNode` and the sample agent ask): `{ actionRequests, reviewConfigs }`, answered
 * by `{ decisions }`, one decision per action request, in order.
 */
// The protocol's types, as the core's review step (`createToolReviewNode`) defines them; type-only, so nothing of the core is bundled.
import type { Decision, HITLRequest } from "@interlude/core/prebuilt";

export type { ActionRequest, Decision } from "@interlude/core/prebuilt";
export type ReviewRequest = HITLRequest;

export function isReviewRequest(value: unknown): value is ReviewRequest {
  const v = value as Partial<ReviewRequest> | null | undefined;
  return typeof v === "object" && v !== null && Array.isArray(v.actionRequests) && Array.isArray(v.reviewConfigs);
}

/** The decisions a reviewer may take on one request (all three when its config does not say). */
export function allowedDecisions(request: ReviewRequest, index: number): Array<Decision["type"]> {
  const name = request.actionRequests[index]?.name;
  const config = request.reviewConfigs.find((c) => c.actionName === name) ?? request.reviewConfigs[index];
  return config?.allowedDecisions ?? ["approve", "edit", "reject"];
}

/** Edited arguments typed as JSON: an object, or a message saying what is wrong. */
export function parseArgs(text: string): Record<string, unknown> | string {
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
    return 'The arguments must be a JSON object, e.g. {"to": "carol@example.com"}.';
  } catch (error) {
    return `The arguments are not valid JSON: ${(error as Error).message}`;
  }
}
