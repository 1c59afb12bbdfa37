// The tool under review. Every real send is appended to a log file, so a test can count sends
// across processes (an approved call must run exactly once, whatever re-runs on resume).
import { appendFileSync } from "node:fs";
import { tool } from "@langchain/core/tools";
import { z } from "zod";

export function sendEmailTool(logFile) {
  return tool(
    async ({ to, subject }) => {
      if (logFile) appendFileSync(logFile, `${JSON.stringify({ to, subject })}\n`);
      return `Email "${subject}" sent to ${to}.`;
    },
    {
      name: "send_email",
      description: "Send an email.",
      schema: z.object({ to: z.string(), subject: z.string(), body: z.string() }),
    },
  );
}
