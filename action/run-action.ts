/**
 * The Action (action.yml, `runs.using: node24`): the CLI run in-process — nothing installed,
 * no tool of the caller's job changed — with the job's OIDC token from @actions/core, the result
 * as step outputs (a result file and a summary file per step, so two steps never overwrite each
 * other's), the step summary, and one pull-request comment per environment.
 *
 * A fork's pull request gets no `id-token`: the step is skipped with a notice and succeeds.
 */
import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Writable } from "node:stream";
import * as core from "@actions/core";
import type { RunResult } from "../cli/client";
import { audienceFor } from "../cli/credentials";
import { main } from "../cli/main";
import { refusedSummary } from "../cli/step-summary";
import { runResultSchema } from "../shared/schemas/run";
import { failureAnnotation, runLink } from "./annotation";
import { commentBody, upsertComment } from "./comment";
import { pullRequestOf, readPayload } from "./event";
import { actionInputs, cliArgs } from "./inputs";

type Env = Record<string, string | undefined>;

/**
 * A stream that keeps what the CLI writes (its --json document; its error lines), passing it on
 * to `through` too when given (stderr stays in the job's log).
 */
function collector(through?: NodeJS.WriteStream): { stream: NodeJS.WriteStream; text: () => string } {
  let text = "";
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += chunk.toString();
      if (through) through.write(chunk, () => done());
      else done();
    },
  });
  return { stream: stream as unknown as NodeJS.WriteStream, text: () => text };
}

export async function runAction(env: Env = process.env): Promise<void> {
  const i = actionInputs();
  if (Object.keys(i.vars).length > 0 && i.command !== "apply" && i.command !== "preview")
    core.warning(`sponson: vars are for apply and preview; ${i.command} runs without them`);
  const payload = readPayload(env.GITHUB_EVENT_PATH);
  const pullRequest = pullRequestOf(payload);
  if (i.token) core.setSecret(i.token);
  if (!i.token && !env.ACTIONS_ID_TOKEN_REQUEST_URL) {
    if (pullRequest?.fromFork) {
      core.notice(
        `Sponson skipped: pull request #${pullRequest.number} comes from a fork, and GitHub gives a fork's job no id-token. ` +
          "Its preview entries are not registered; a maintainer's push or a pull request from a branch of this repository is.",
      );
      core.setOutput("status", "skipped");
      return;
    }
    core.setFailed("no credentials: the job needs `permissions: id-token: write` (or the `token` input)");
    return;
  }
  const token = i.token || (await core.getIDToken(audienceFor(env, i.url, i.audience || undefined)));

  const out = collector();
  const cliEnv: Env = { ...env, SPONSON_TOKEN: token, SPONSON_URL: i.url };
  // The Action writes the step summary itself (one writer per step).
  delete cliEnv.GITHUB_STEP_SUMMARY;
  const err = collector(process.stderr);
  const code = await main(cliArgs(i), { env: cliEnv, stdout: out.stream, stderr: err.stream });

  let doc: { error?: { code?: string; detail?: string } } = {};
  try {
    doc = JSON.parse(out.text()) ?? {};
  } catch {
    // Usage errors print no document; stderr said why.
  }
  const stepId = `${env.GITHUB_ACTION || "sponson"}-${randomUUID().slice(0, 8)}`;
  const dir = env.RUNNER_TEMP || process.cwd();
  const resultPath = join(dir, `sponson-${stepId}.json`);
  const summaryPath = join(dir, `sponson-${stepId}.md`);
  writeFileSync(resultPath, out.text() || "{}\n");
  // What reaches the comment and the outputs is a run result in the service's own shape.
  const parsed = runResultSchema.safeParse(doc);
  const result: RunResult | null = parsed.success ? parsed.data : null;
  const target = `${i.environment}/${i.scope || (pullRequest ? `pr-${pullRequest.number}` : "")}`;
  const markdown = result
    ? commentBody(result, runLink(i.url, result)).split("\n").slice(1).join("\n")
    : refusedSummary(i.command, target, {
        code: doc.error?.code ?? "FAILED",
        message: doc.error?.detail ?? `sponson exited ${code}`,
      } as never);
  writeFileSync(summaryPath, markdown);
  if (env.GITHUB_STEP_SUMMARY) await core.summary.addRaw(markdown).write();

  core.setOutput("result", resultPath);
  core.setOutput("summary-path", summaryPath);
  core.setOutput("run-id", result?.run.id ?? "");
  core.setOutput("status", result?.run.status ?? "refused");

  if (result && pullRequest && i.comment && i.githubToken && !pullRequest.fromFork) {
    try {
      const done = await upsertComment(
        {
          apiUrl: env.GITHUB_API_URL || "https://api.github.com",
          token: i.githubToken,
          repository: pullRequest.repository || env.GITHUB_REPOSITORY || "",
          issueNumber: pullRequest.number,
        },
        result.run.environment,
        commentBody(result, runLink(i.url, result)),
      );
      core.setOutput("comment-id", String(done.id));
      core.setOutput("comment-url", done.url);
      core.info(`sponson: pull request comment ${done.action}: ${done.url}`);
    } catch (err) {
      core.warning(
        `sponson: could not write the pull request comment (pull-requests: write?): ${(err as Error).message}`,
      );
    }
  }
  // Exit 3: a destroy or rollback of a scope with no receipt (a closed pull request that never
  // applied): nothing to do, which the job should show but not fail on.
  if (code === 3)
    core.warning(`sponson ${i.command}: ${result?.warnings.join("; ") ?? "the scope has no receipt"}`);
  else if (code !== 0)
    // The annotation is what the checks list shows first: the problem, and what to do about it.
    core.setFailed(
      failureAnnotation({
        command: i.command,
        target,
        url: i.url,
        exitCode: code,
        result,
        problem: doc.error,
        stderr: err.text(),
      }),
    );
}
