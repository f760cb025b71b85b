/**
 * The Markdown a run appends to $GITHUB_STEP_SUMMARY: a heading with the outcome and one table row
 * per plan line, or the problem that refused the run. Every value from the plan, the run or a provider
 * goes through `mdValue`/`mdCell` (cli/markdown.ts): it renders as text, never as markup.
 */
import { appendFileSync } from "node:fs";
import type { ApiError, RunResult } from "./client";
import { mdCell, mdValue } from "./markdown";
import { counts } from "./render";

export function runSummary(result: RunResult): string {
  const { run } = result;
  const icon = run.status === "succeeded" ? "✅" : "❌";
  const out = [
    `### ${icon} sponson ${run.action} ${mdValue(`${run.environment}/${run.scope}`)}: ${run.status}`,
    "",
    `Run ${mdValue(run.id)}: ${counts(result)}.`,
    "",
  ];
  if (run.error) out.push(`**${mdValue(run.error.code)}**: ${mdValue(run.error.message)}`, "");
  if (result.lines.length > 0) {
    out.push("| line | op | diff | result | item | parent |", "| --- | --- | --- | --- | --- | --- |");
    for (const l of result.lines) {
      const result = l.error ? `${l.result} (${mdCell(l.error.code)})` : l.result;
      out.push(
        `| ${mdCell(l.id)} | ${mdCell(l.op)} | ${l.diff} | ${result} | ${mdCell(l.key)} | ${l.parent ? mdCell(l.parent) : ""} |`,
      );
    }
    out.push("");
  }
  for (const d of result.drift)
    out.push(`- drift: ${mdValue(d.line)} ${mdValue(d.key)} is ${d.kind} at the provider`);
  for (const w of result.warnings) out.push(`- warning: ${mdValue(w)}`);
  return `${out.join("\n").trimEnd()}\n\n`;
}

export function refusedSummary(action: string, target: string, err: ApiError): string {
  return `### ❌ sponson ${mdValue(action)} ${mdValue(target)}: refused\n\n**${mdValue(err.code)}**: ${mdValue(err.message)}\n\n`;
}

export function appendSummary(path: string | undefined, markdown: string): void {
  if (!path) return;
  appendFileSync(path, markdown);
}
