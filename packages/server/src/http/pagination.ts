/**
 * LangGraph Server's paging header on searches: `X-Pagination-Next`, the offset of the next
 * page, sent only when there is one (the SDK's `search({ includePagination: true })` gives it
 * as `next`, null on the last page).
 */
export function nextPageHeader(offset: number, limit: number, more: boolean): Record<string, string> {
  return more && limit > 0 ? { "X-Pagination-Next": String(offset + limit) } : {};
}
