/**
 * The committed dist/action.js, run the way a GitHub runner runs a node24 action, against the
 * suite's local service (the same Worker and emulators `npm start` serves): inputs as INPUT_*
 * variables, the event payload in GITHUB_EVENT_PATH, an OIDC token endpoint at
 * ACTIONS_ID_TOKEN_REQUEST_URL served here, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files, and a
 * local GitHub API answering the comment calls. The local service cannot trust a fake GitHub
 * issuer, so the OIDC endpoint answers with a ci service token for the pull request's scope.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, inject, it } from "vitest";
import { DEMO_REPOSITORY } from "../../scripts/dev-webhook.mjs";
import { runResultSchema } from "../../shared/schemas/run";
import { type CliResult, EXAMPLE_PLAN, freshPr, mintToken, ROOT } from "./helpers";

const REQUEST_TOKEN = "runner-request-token-5678";
const GITHUB_TOKEN = "ghs_job-token-for-comments";

interface User {
  login: string;
  id: number;
  type: "User" | "Bot";
}
const ACTIONS_BOT: User = { login: "github-actions[bot]", id: 41898282, type: "Bot" };
const MALLORY: User = { login: "mallory", id: 666, type: "User" };

/**
 * The comment tokens the local GitHub API knows, as GitHub answers them: the job's GITHUB_TOKEN
 * (an installation token: GraphQL `viewer` answers, `GET /user` does not), an installation token
 * whose `viewer` is unavailable too (older GitHub Enterprise Server), and a bot user's PAT whose
 * GraphQL is refused here, so that `GET /user` has to answer.
 */
const TOKENS: Record<string, { user: User; viewer: boolean; restUser: boolean }> = {
  [GITHUB_TOKEN]: { user: ACTIONS_BOT, viewer: true, restUser: false },
  "ghs_installation-token-without-viewer": { user: ACTIONS_BOT, viewer: false, restUser: false },
  "ghp_deploy-bot-pat": {
    user: { login: "deploy-bot", id: 5150, type: "User" },
    viewer: false,
    restUser: true,
  },
};

interface Comment {
  id: number;
  body: string;
  user: User;
  html_url: string;
}
interface ApiCall {
  method: string;
  path: string;
  authorization: string | undefined;
}

let server: Server;
let base: string;
/** The token the OIDC endpoint hands out, per pull request number. */
const oidcTokens = new Map<number, string>();
const oidcAudiences: string[] = [];
const comments = new Map<number, Comment[]>();
const apiCalls: ApiCall[] = [];
let nextCommentId = 1000;

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = "";
    req.on("data", (d: Buffer) => {
      text += d.toString();
    });
    req.on("end", () => resolve(text));
  });
}

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const json = (status: number, value: unknown) =>
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
    if (url.pathname.startsWith("/idtoken/")) {
      if (req.headers.authorization !== `Bearer ${REQUEST_TOKEN}`)
        return json(401, { message: "bad request token" });
      oidcAudiences.push(url.searchParams.get("audience") ?? "");
      return json(200, { value: oidcTokens.get(Number(url.pathname.split("/")[2])) });
    }
    // The GitHub REST API's issue comments (docs.github.com, "REST API endpoints for issue comments").
    apiCalls.push({ method: req.method ?? "", path: url.pathname, authorization: req.headers.authorization });
    const caller = TOKENS[(req.headers.authorization ?? "").replace(/^token /, "")];
    if (!caller) return json(401, { message: "Bad credentials" });
    if (url.pathname === "/graphql" && req.method === "POST") {
      if (!caller.viewer)
        return json(200, { data: null, errors: [{ type: "FORBIDDEN", message: "no viewer" }] });
      // GraphQL names a bot without the `[bot]` suffix REST shows; its databaseId is REST's id.
      return json(200, {
        data: { viewer: { login: caller.user.login.replace(/\[bot\]$/, ""), databaseId: caller.user.id } },
      });
    }
    if (url.pathname === "/user" && req.method === "GET") {
      if (!caller.restUser) return json(403, { message: "Resource not accessible by integration" });
      return json(200, caller.user);
    }
    const list = /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)\/comments$/.exec(url.pathname);
    const one = /^\/repos\/([^/]+)\/([^/]+)\/issues\/comments\/(\d+)$/.exec(url.pathname);
    if (list && `${list[1]}/${list[2]}` === DEMO_REPOSITORY.name) {
      const issue = Number(list[3]);
      const existing = comments.get(issue) ?? [];
      if (req.method === "GET") return json(200, existing);
      if (req.method === "POST") {
        const text = (JSON.parse(await body(req)) as { body: string }).body;
        const comment = addComment(issue, caller.user, text);
        return json(201, comment);
      }
    }
    // Like GitHub, a token with pull-requests: write may edit anyone's comment: ownership is the Action's check.
    if (one && req.method === "PATCH") {
      const id = Number(one[3]);
      const text = (JSON.parse(await body(req)) as { body: string }).body;
      const comment = [...comments.values()].flat().find((c) => c.id === id);
      if (!comment) return json(404, { message: "Not Found" });
      comment.body = text;
      return json(200, comment);
    }
    return json(404, { message: "Not Found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error("no address");
  base = `http://127.0.0.1:${address.port}`;
});

function addComment(issue: number, user: User, text: string): Comment {
  const id = nextCommentId++;
  const comment = {
    id,
    body: text,
    user,
    html_url: `https://github.com/${DEMO_REPOSITORY.name}/pull/${issue}#issuecomment-${id}`,
  };
  comments.set(issue, [...(comments.get(issue) ?? []), comment]);
  return comment;
}

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

interface Step extends CliResult {
  outputs: Record<string, string>;
  summary: string;
}

/** GITHUB_OUTPUT's `name<<delimiter` blocks, as @actions/core writes them. */
function parseOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const m = /^([^<=]+)<<(.+)$/.exec(lines[i] as string);
    if (!m) continue;
    const value: string[] = [];
    for (i++; i < lines.length && lines[i] !== m[2]; i++) value.push(lines[i] as string);
    outputs[m[1] as string] = value.join("\n");
  }
  return outputs;
}

function runAction(options: {
  number: number;
  fromFork?: boolean;
  oidc?: boolean;
  inputs?: Record<string, string>;
}): Promise<Step> {
  const temp = mkdtempSync(join(tmpdir(), "sponson-runner-"));
  const output = join(temp, "github-output");
  const summary = join(temp, "step-summary.md");
  const event = join(temp, "event.json");
  writeFileSync(output, "");
  writeFileSync(summary, "");
  const head = options.fromFork ? "someone/Hello-World" : DEMO_REPOSITORY.name;
  writeFileSync(
    event,
    JSON.stringify({
      action: "synchronize",
      number: options.number,
      pull_request: {
        number: options.number,
        head: {
          ref: "feature",
          sha: "1".repeat(40),
          repo: { full_name: head, fork: options.fromFork === true },
        },
        base: { ref: "master", repo: { full_name: DEMO_REPOSITORY.name } },
      },
      repository: { full_name: DEMO_REPOSITORY.name, default_branch: "master" },
    }),
  );
  const oidc = options.oidc ?? !options.fromFork;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/tmp",
    CI: "true",
    GITHUB_ACTIONS: "true",
    GITHUB_ACTION: "sponson",
    GITHUB_EVENT_NAME: "pull_request",
    GITHUB_EVENT_PATH: event,
    GITHUB_REF: `refs/pull/${options.number}/merge`,
    GITHUB_SHA: "2".repeat(40),
    GITHUB_REPOSITORY: DEMO_REPOSITORY.name,
    GITHUB_API_URL: base,
    GITHUB_OUTPUT: output,
    GITHUB_STEP_SUMMARY: summary,
    RUNNER_TEMP: temp,
    INPUT_URL: inject("sponsonUrl"),
    INPUT_PLAN: EXAMPLE_PLAN,
    INPUT_ENVIRONMENT: "preview",
    INPUT_AUDIENCE: inject("audience"),
    INPUT_COMMENT: "true",
    "INPUT_GITHUB-TOKEN": GITHUB_TOKEN,
    ...(oidc
      ? {
          ACTIONS_ID_TOKEN_REQUEST_URL: `${base}/idtoken/${options.number}?api-version=2.0`,
          ACTIONS_ID_TOKEN_REQUEST_TOKEN: REQUEST_TOKEN,
        }
      : {}),
    ...options.inputs,
  };
  const child = spawn(process.execPath, [join(ROOT, "dist", "action.js")], { cwd: ROOT, env });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) =>
      resolve({
        code,
        stdout,
        stderr,
        outputs: parseOutputs(readFileSync(output, "utf8")),
        summary: readFileSync(summary, "utf8"),
      }),
    );
  });
}

async function pullRequest(): Promise<number> {
  const number = Number(freshPr().slice(3));
  oidcTokens.set(number, await mintToken("ci", [`preview/pr-${number}`]));
  return number;
}

describe("the Action on a simulated runner", () => {
  it("applies the pull request's plan: outputs, step summary, and one comment for the environment", async ({
    expect,
  }) => {
    const number = await pullRequest();
    const callsBefore = apiCalls.length;
    const step = await runAction({ number });
    expect(step.code, step.stdout + step.stderr).toBe(0);
    expect(oidcAudiences.at(-1)).toBe(inject("audience"));
    // Outputs in GitHub's conventions, each step its own files.
    expect(step.outputs.status).toBe("succeeded");
    const result = runResultSchema.parse(JSON.parse(readFileSync(step.outputs.result as string, "utf8")));
    expect(result.run.scope).toBe(`pr-${number}`);
    expect(step.outputs["run-id"]).toBe(result.run.id);
    expect(readFileSync(step.outputs["summary-path"] as string, "utf8")).toContain(result.run.id);
    expect(step.summary).toContain(`sponson apply \`preview/pr-${number}\`: succeeded`);
    // The job's OIDC token never shows in the log: @actions/core masks it first.
    expect(step.stdout).toContain(`::add-mask::${oidcTokens.get(number)}`);
    // The comment: the run's table and a link to the run's dashboard page.
    const posted = comments.get(number) ?? [];
    expect(posted).toHaveLength(1);
    expect(posted[0]?.body).toContain("<!-- sponson-edge: environment=preview -->");
    expect(posted[0]?.body).toContain("| callback | `auth0.callbackUrl` | create | created |");
    expect(posted[0]?.body).toContain(
      `/dashboard/runs/${result.run.id}?environment=preview&scope=pr-${number}`,
    );
    expect(apiCalls.slice(callsBefore).every((c) => c.authorization === `token ${GITHUB_TOKEN}`)).toBe(true);
    // The comment's id and address, as outputs beside run-id and status.
    expect(step.outputs["comment-id"]).toBe(String(posted[0]?.id));
    expect(step.outputs["comment-url"]).toBe(posted[0]?.html_url);
    expect(posted[0]?.html_url).toMatch(/#issuecomment-\d+$/);
  });

  it("a second run updates the same comment instead of adding one", async ({ expect }) => {
    const number = await pullRequest();
    await runAction({ number });
    const second = await runAction({ number });
    expect(second.code).toBe(0);
    const posted = comments.get(number) ?? [];
    expect(posted).toHaveLength(1);
    expect(posted[0]?.body).toContain(second.outputs["run-id"] as string);
    expect(posted[0]?.body).toContain("| unchanged |");
    expect(apiCalls.some((c) => c.method === "PATCH")).toBe(true);
  });

  it("a fork's pull request (no id-token) is skipped with a notice and exits 0; nothing is applied or commented", async ({
    expect,
  }) => {
    const number = await pullRequest();
    const before = apiCalls.length;
    const step = await runAction({ number, fromFork: true });
    expect(step.code).toBe(0);
    expect(step.stdout).toMatch(/^::notice::Sponson skipped: pull request #\d+ comes from a fork/m);
    expect(step.outputs.status).toBe("skipped");
    expect(step.outputs["run-id"]).toBeUndefined();
    expect(apiCalls.length).toBe(before);
    expect(comments.get(number)).toBeUndefined();
  });

  it("a job of this repository without id-token fails, naming the permission", async ({ expect }) => {
    const step = await runAction({ number: await pullRequest(), oidc: false });
    expect(step.code).not.toBe(0);
    expect(step.stdout).toContain("::error::no credentials: the job needs `permissions: id-token: write`");
  });

  it("a refused run sets status refused, fails the step, and writes no comment", async ({ expect }) => {
    const number = await pullRequest();
    const step = await runAction({ number, inputs: { INPUT_TOKEN: "not-a-token" } });
    expect(step.code).not.toBe(0);
    expect(step.outputs).toMatchObject({ status: "refused", "run-id": "" });
    expect(step.summary).toContain("refused");
    // The annotation the checks list shows: the code, the service's message, and what to do.
    expect(step.stdout).toMatch(/::error::sponson apply preview\/pr-\d+ was refused: UNAUTHENTICATED: \S/);
    expect(step.stdout).toContain("What to do: the token was refused");
    expect(comments.get(number)).toBeUndefined();
  });

  it.for([
    ["the job's GITHUB_TOKEN (GraphQL viewer)", GITHUB_TOKEN],
    [
      "an installation token whose identity cannot be read (github-actions[bot])",
      "ghs_installation-token-without-viewer",
    ],
    ["a bot user's PAT (GET /user)", "ghp_deploy-bot-pat"],
  ])(
    "with %s, a comment starting with the marker written by someone else is never edited",
    async ([, token], { expect }) => {
      const number = await pullRequest();
      const identity = TOKENS[token as string]?.user as User;
      const marker = "<!-- sponson-edge: environment=preview -->";
      // A commenter quotes the marker; for the PAT, the job's bot has a comment of its own there too.
      const mallory = addComment(number, MALLORY, `${marker}\nlooks like the bot, belongs to mallory`);
      const others = [mallory];
      if (identity !== ACTIONS_BOT)
        others.push(addComment(number, ACTIONS_BOT, `${marker}\nwritten by another workflow`));
      const untouched = others.map((c) => ({ ...c }));
      const inputs = { "INPUT_GITHUB-TOKEN": token as string };

      const first = await runAction({ number, inputs });
      expect(first.code, first.stdout + first.stderr).toBe(0);
      const own = (comments.get(number) ?? []).filter((c) => c.user === identity && !others.includes(c));
      expect(own).toHaveLength(1);
      expect(first.outputs["comment-id"]).toBe(String(own[0]?.id));
      expect(first.outputs["comment-url"]).toBe(own[0]?.html_url);
      expect(others).toEqual(untouched);

      // The next run finds its own comment again and updates it.
      const second = await runAction({ number, inputs });
      expect(second.code, second.stdout + second.stderr).toBe(0);
      expect(second.outputs["comment-id"]).toBe(first.outputs["comment-id"]);
      expect(comments.get(number)).toHaveLength(others.length + 1);
      expect(own[0]?.body).toContain(second.outputs["run-id"] as string);
      expect(others).toEqual(untouched);
    },
  );

  it("an http:// service URL off loopback is refused before the job's token is asked for", async ({
    expect,
  }) => {
    const number = await pullRequest();
    const asked = oidcAudiences.length;
    const step = await runAction({ number, inputs: { INPUT_URL: "http://sponson.example.com" } });
    expect(step.code).not.toBe(0);
    expect(step.stdout).toContain(
      '::error::url: the service URL "http://sponson.example.com" must be https://',
    );
    expect(oidcAudiences.length).toBe(asked);
    expect(comments.get(number)).toBeUndefined();
  });

  it("`comment: True` is a boolean; `comment: yes` fails the step naming the input", async ({ expect }) => {
    const number = await pullRequest();
    const yes = await runAction({ number, inputs: { INPUT_COMMENT: "True", INPUT_WAIT: "TRUE" } });
    expect(yes.code, yes.stdout + yes.stderr).toBe(0);
    expect(comments.get(number)).toHaveLength(1);
    const asked = oidcAudiences.length;
    const bad = await runAction({ number, inputs: { INPUT_COMMENT: "yes" } });
    expect(bad.code).not.toBe(0);
    expect(bad.stdout).toMatch(/::error::Input does not meet YAML 1\.2 "Core Schema" specification: comment/);
    expect(oidcAudiences.length).toBe(asked);
  });

  it("a var whose name the service would refuse fails the step, naming the line, before any token", async ({
    expect,
  }) => {
    const number = await pullRequest();
    const asked = oidcAudiences.length;
    const step = await runAction({
      number,
      inputs: { INPUT_VARS: "url=https://pr.example.com\nPreview-Url=x" },
    });
    expect(step.code).not.toBe(0);
    expect(step.stdout).toContain('::error::vars line 2: "Preview-Url" is not a var name');
    expect(oidcAudiences.length).toBe(asked);
  });

  it("two Sponson steps in one job keep separate result files", async ({ expect }) => {
    const number = await pullRequest();
    const first = await runAction({ number });
    const second = await runAction({ number, inputs: { INPUT_COMMAND: "preview" } });
    expect(first.outputs.result).not.toBe(second.outputs.result);
    expect(JSON.parse(readFileSync(first.outputs.result as string, "utf8")).run.action).toBe("apply");
    expect(JSON.parse(readFileSync(second.outputs.result as string, "utf8")).run.action).toBe("preview");
  });
});
