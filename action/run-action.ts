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
import { commentBody, upsertComment } from "./comment";
import { pullRequestOf, readPayload } from "./event";

const COMMANDS = ["apply", "preview", "destroy", "rollback"] as const;
type Command = (typeof COMMANDS)[number];

type Env = Record<string, string | undefined>;

function inputs() {
  const command = core.getInput("command") || "apply";
  if (!(COMMANDS as readonly string[]).includes(command))
    throw new Error(`command must be ${COMMANDS.join(", ")}; got "${command}"`);
  return {
    url: core.getInput("url", { required: true }),
    plan: core.getInput("plan") || "sponson.plan.json",
    environment: core.getInput("environment") || "preview",
    scope: core.getInput("scope"),
    wait: core.getInput("wait") === "true",
    waitTimeout: core.getInput("wait-timeout"),
    audience: core.getInput("audience"),
    command: command as Command,
    token: core.getInput("token"),
    comment: (core.getInput("comment") || "true") === "true",
    githubToken: core.getInput("github-token"),
  };
}

function cliArgs(i: ReturnType<typeof inputs>): string[] {
  const args: string[] = [i.command, "--env", i.environment, "--url", i.url, "--json"];
  if (i.command === "apply" || i.command === "preview") args.push("--plan", i.plan);
  if (i.scope) args.push("--scope", i.scope);
  if (i.command !== "preview") {
    if (i.waitTimeout) args.push("--wait-timeout", i.waitTimeout);
    else if (i.wait) args.push("--wait");
  }
  return args;
}

/** A stream that keeps what the CLI writes (its --json document). */
function collector(): { stream: NodeJS.WriteStream; text: () => string } {
  let text = "";
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream: stream as unknown as NodeJS.WriteStream, text: () => text };
}

export async function runAction(env: Env = process.env): Promise<void> {
  const i = inputs();
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
  const code = await main(cliArgs(i), { env: cliEnv, stdout: out.stream, stderr: process.stderr });

  let doc: { run?: RunResult["run"]; error?: { code?: string; detail?: string } } & Partial<RunResult> = {};
  try {
    doc = JSON.parse(out.text());
  } catch {
    // Usage errors print no document; stderr said why.
  }
  const stepId = `${env.GITHUB_ACTION || "sponson"}-${randomUUID().slice(0, 8)}`;
  const dir = env.RUNNER_TEMP || process.cwd();
  const resultPath = join(dir, `sponson-${stepId}.json`);
  const summaryPath = join(dir, `sponson-${stepId}.md`);
  writeFileSync(resultPath, out.text() || "{}\n");
  const result = doc.run ? (doc as RunResult) : null;
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
      core.info(`sponson: pull request comment ${done.action} (${done.id})`);
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
    core.setFailed(`sponson ${i.command} ${result?.run.status ?? "refused"} (exit ${code})`);
}

/** The run's page on the dashboard: the run id, and where its receipt lives. */
export function runLink(url: string, result: RunResult): string {
  const { run } = result;
  const query = new URLSearchParams({ environment: run.environment, scope: run.scope });
  if (run.repository) query.set("repository", run.repository.name);
  return `${url.replace(/\/+$/, "")}/dashboard/runs/${encodeURIComponent(run.id)}?${query}`;
}
