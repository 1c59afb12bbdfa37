/**
 * A tool call waiting for review, in LangChain v1 humanInTheLoopMiddleware's protocol (what
 * `createToolReviewNode` and the sample agent ask): `{ actionRequests, reviewConfigs }`, answered
 * by `{ decisions }`, one decision per action request, in order.
 */
export interface ActionRequest {
  name: string;
  args: Record<string, unknown>;
  description?: string;
}

interface ReviewConfig {
  actionName: string;
  allowedDecisions: Array<Decision["type"]>;
}

export interface ReviewRequest {
  actionRequests: ActionRequest[];
  reviewConfigs: ReviewConfig[];
}

export type Decision =
  | { type: "approve" }
  | { type: "edit"; editedAction: { name: string; args: Record<string, unknown> } }
  | { type: "reject"; message?: string };

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
