/** Prometheus's text exposition format (version 0.0.4), which `GET /metrics` answers by default. */

export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

interface Sample {
  readonly labels?: Readonly<Record<string, string>>;
  readonly value: number;
}

/** A gauge or a counter (a count since the process started) and its samples: one without labels, or one per label set. */
export interface Metric {
  readonly name: string;
  readonly type: "gauge" | "counter";
  readonly help: string;
  readonly samples: readonly Sample[];
}

/** The format's escapes: a label value may hold any text, a help text anything but a raw newline. */
const escapeHelp = (text: string) => text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
const escapeLabel = (text: string) => escapeHelp(text).replace(/"/g, '\\"');

function sampleLine(name: string, { labels, value }: Sample): string {
  const pairs = labels ? Object.entries(labels).map(([key, text]) => `${key}="${escapeLabel(text)}"`) : [];
  return `${name}${pairs.length ? `{${pairs.join(",")}}` : ""} ${Number.isFinite(value) ? value : "NaN"}`;
}

export function exposition(metrics: readonly Metric[]): string {
  const lines: string[] = [];
  for (const { name, type, help, samples } of metrics) {
    lines.push(`# HELP ${name} ${escapeHelp(help)}`, `# TYPE ${name} ${type}`);
    for (const sample of samples) lines.push(sampleLine(name, sample));
  }
  return `${lines.join("\n")}\n`;
}
