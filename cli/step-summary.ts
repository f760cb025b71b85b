/**
 * The Markdown a run appends to $GITHUB_STEP_SUMMARY: a heading with the outcome and one table row
 * per plan line, or the problem that refused the run. Every value from the plan, the run or a provider
 * goes through `mdCode`/`mdText` (and `mdCell` in the table) (cli/markdown.ts): it renders as text, never as markup.
 */
import { appendFileSync } from "node:fs";
import type { ApiError, RunResult } from "./client";
import { mdCell, mdCode, mdText } from "./markdown";
import { counts } from "./render";

export function runSummary(result: RunResult): string {
  const { run } = result;
  const icon = run.status === "succeeded" ? "✅" : "❌";
  const out = [
    `### ${icon} sponson ${run.action} ${mdCode(`${run.environment}/${run.scope}`)}: ${run.status}`,
    "",
    `Run ${mdCode(run.id)}: ${counts(result)}.`,
    "",
  ];
  if (run.error) out.push(`**${mdText(run.error.code)}**: ${mdText(run.error.message)}`, "");
  if (result.lines.length > 0) {
    out.push("| line | op | diff | result | item | parent |", "| --- | --- | --- | --- | --- | --- |");
    for (const l of result.lines) {
      const result = l.error
        ? `${l.result} (${mdCell(mdText(l.error.code))})`
        : l.planned
          ? `${l.result} (planned ${l.planned})`
          : l.result;
      out.push(
        `| ${mdCell(mdText(l.id))} | ${mdCell(mdCode(l.op))} | ${l.diff} | ${result} | ${mdCell(mdCode(l.key))} | ${l.parent ? mdCell(mdCode(l.parent)) : ""} |`,
      );
    }
    out.push("");
  }
  for (const d of result.drift)
    out.push(`- drift: ${mdText(d.line)} ${mdCode(d.key)} is ${d.kind} at the provider`);
  for (const w of result.warnings) out.push(`- warning: ${mdText(w)}`);
  return `${out.join("\n").trimEnd()}\n\n`;
}

export function refusedSummary(action: string, target: string, err: ApiError): string {
  return `### ❌ sponson ${mdText(action)} ${mdCode(target)}: refused\n\n**${mdText(err.code)}**: ${mdText(err.message)}\n\n`;
}

export function appendSummary(path: string | undefined, markdown: string): void {
  if (!path) return;
  appendFileSync(path, markdown);
}
