/**
 * The Markdown a run appends to $GITHUB_STEP_SUMMARY: a heading with the outcome and one table row
 * per plan line, or the problem that refused the run.
 */
import { appendFileSync } from "node:fs";
import type { ApiError, RunResult } from "./client";
import { counts } from "./render";

/** Table cells: pipes and newlines would break the row; backticks keep URLs from being linkified. */
function cell(text: string): string {
  return text.replaceAll("\\", "\\\\").replaceAll("|", "\\|").replace(/\r?\n/g, " ");
}

function code(text: string): string {
  return `\`${cell(text).replaceAll("`", "'")}\``;
}

export function runSummary(result: RunResult): string {
  const { run } = result;
  const icon = run.status === "succeeded" ? "✅" : "❌";
  const out = [
    `### ${icon} sponson ${run.action} ${code(`${run.environment}/${run.scope}`)}: ${run.status}`,
    "",
    `Run ${code(run.id)}: ${counts(result)}.`,
    "",
  ];
  if (run.error) out.push(`**${run.error.code}**: ${cell(run.error.message)}`, "");
  if (result.lines.length > 0) {
    out.push("| line | op | diff | result | item | parent |", "| --- | --- | --- | --- | --- | --- |");
    for (const l of result.lines) {
      const result = l.error ? `${l.result} (${l.error.code})` : l.result;
      out.push(
        `| ${cell(l.id)} | ${code(l.op)} | ${l.diff} | ${cell(result)} | ${code(l.key)} | ${l.parent ? code(l.parent) : ""} |`,
      );
    }
    out.push("");
  }
  for (const d of result.drift)
    out.push(`- drift: ${cell(d.line)} ${code(d.key)} is ${d.kind} at the provider`);
  for (const w of result.warnings) out.push(`- warning: ${cell(w)}`);
  return `${out.join("\n").trimEnd()}\n\n`;
}

export function refusedSummary(action: string, target: string, err: ApiError): string {
  return `### ❌ sponson ${action} ${code(target)}: refused\n\n**${err.code}**: ${cell(err.message)}\n\n`;
}

export function appendSummary(path: string | undefined, markdown: string): void {
  if (!path) return;
  appendFileSync(path, markdown);
}
