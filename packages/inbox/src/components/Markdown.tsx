import { renderMarkdown } from "../domain/markdown";

/** Markdown rendered with raw HTML escaped (see domain/markdown). */
export function Markdown({ text }: { text: string }) {
  return <div class="markdown" dangerouslySetInnerHTML={{ __html: renderMarkdown(text) }} />;
}
