/**
 * apply, preview, rollback, destroy and ledger against the local service: streamed lines, the
 * `--json` document, the step summary, and exit 0 / 1.
 */
import { readFileSync } from "node:fs";
import { beforeAll, describe, it } from "vitest";
import { receiptSchema } from "../../shared/schemas/receipt";
import { scopeListSchema } from "../../shared/schemas/responses";
import { runResultSchema } from "../../shared/schemas/run";
import {
  DEMO_PARENT,
  EXAMPLE_PLAN,
  freshPr,
  mintToken,
  planFile,
  run,
  scratchFile,
  sponson,
} from "./helpers";

let admin: Record<string, string>;
beforeAll(async () => {
  admin = { SPONSON_TOKEN: await mintToken("admin") };
});

const urls = (scope: string) => [
  `https://${scope}.preview.example.com/callback`,
  `https://${scope}.preview.example.com/`,
  `https://${scope}.preview.example.com`,
];

describe("sponson apply, preview, rollback, destroy", () => {
  it("apply prints the run, one line per plan line in plan order, then the outcome; exit 0", async ({
    expect,
  }) => {
    const scope = freshPr();
    const { code, stdout, stderr } = await sponson(
      ["apply", "--plan", EXAMPLE_PLAN, "--scope", scope],
      admin,
    );
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(
      new RegExp(`^apply preview/${scope} in Codertocat/Hello-World \\(run run-[a-z0-9-]+\\)$`),
    );
    expect(lines.slice(1, 4)).toEqual([
      `  +  callback  auth0.callbackUrl  created  ${urls(scope)[0]}`,
      `  +  logout  auth0.logoutUrl  created  ${urls(scope)[1]}`,
      `  +  origin  auth0.webOrigin  created  ${urls(scope)[2]}`,
    ]);
    expect(lines[4]).toMatch(/^succeeded in \d+\.\ds: 3 created$/);
    expect(lines).toHaveLength(5);
  });

  it("--verbose prints where the run's time went and the calls it made, after the outcome", async ({
    expect,
  }) => {
    const scope = freshPr();
    const { code, stdout, stderr } = await sponson(
      ["apply", "--plan", EXAMPLE_PLAN, "--scope", scope, "--verbose"],
      admin,
    );
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split("\n");
    expect(lines[4]).toMatch(/^succeeded in \d+\.\ds: 3 created$/);
    const n = String.raw`\d+(?:\.\d+)? ms`;
    expect(lines[5]).toMatch(
      new RegExp(
        `^timings: total ${n}; authorization ${n}, scope lock ${n}, parent locks ${n}, provider ${n}, storage ${n}(?:, provider budget ${n})?$`,
      ),
    );
    const counts =
      /^counts: (\d+) provider calls, (\d+) lock operations, (\d+) storage reads, (\d+) storage writes$/.exec(
        lines[6] ?? "",
      );
    expect(counts, lines[6]).not.toBeNull();
    // Three created lines: at least the read under the parent lease and the write at the provider
    // (a new scope reads nothing before it; the token may be cached already), and a receipt write.
    expect(Number(counts?.[1])).toBeGreaterThanOrEqual(2);
    expect(Number(counts?.[2])).toBeGreaterThan(0);
    expect(Number(counts?.[4])).toBeGreaterThan(0);
    expect(lines).toHaveLength(7);
  });

  it("--verbose with --json keeps stdout one document: the timings go to stderr with the lines", async ({
    expect,
  }) => {
    const { code, stdout, stderr } = await sponson(
      ["preview", "--plan", EXAMPLE_PLAN, "--scope", freshPr(), "--json", "--verbose"],
      admin,
    );
    expect(code).toBe(0);
    const result = runResultSchema.parse(JSON.parse(stdout));
    expect(result.counts?.storageWrites).toBe(0);
    // No lease; one read-only call per object for its owners (docs/design.md, "Run algorithm").
    expect(result.counts?.locks).toBe(0);
    expect(stderr).toContain(`timings: total ${result.timings?.total} ms;`);
    expect(stderr).toContain(
      `counts: ${result.counts?.providerCalls} provider calls, ${result.counts?.lockOps} lock operations`,
    );
  });

  it("--json prints exactly the run result on stdout (the lines go to stderr)", async ({ expect }) => {
    const scope = freshPr();
    const { code, stdout, stderr } = await sponson(
      ["apply", "--plan", EXAMPLE_PLAN, "--env", "preview", "--scope", scope, "--json"],
      admin,
    );
    expect(code).toBe(0);
    const result = runResultSchema.parse(JSON.parse(stdout));
    expect(Object.keys(JSON.parse(stdout)).sort()).toEqual([
      "counts",
      "drift",
      "lines",
      "run",
      "timings",
      "warnings",
    ]);
    expect(result.run).toMatchObject({ environment: "preview", scope, action: "apply", status: "succeeded" });
    expect(result.lines.map((l) => [l.id, l.op, l.diff, l.result, l.key, l.parent])).toEqual([
      ["callback", "auth0.callbackUrl", "create", "created", urls(scope)[0], DEMO_PARENT],
      ["logout", "auth0.logoutUrl", "create", "created", urls(scope)[1], DEMO_PARENT],
      ["origin", "auth0.webOrigin", "create", "created", urls(scope)[2], DEMO_PARENT],
    ]);
    expect(stderr).toContain(`created  ${urls(scope)[0]}`);
  });

  it("writes a Markdown table to $GITHUB_STEP_SUMMARY, appending run after run", async ({ expect }) => {
    const scope = freshPr();
    const summary = scratchFile(`summary-${scope}.md`, "# earlier step\n\n");
    const env = { ...admin, GITHUB_STEP_SUMMARY: summary };
    expect((await sponson(["apply", "--plan", EXAMPLE_PLAN, "--scope", scope], env)).code).toBe(0);
    expect((await sponson(["preview", "--plan", EXAMPLE_PLAN, "--scope", scope], env)).code).toBe(0);
    const run = JSON.parse((await sponson(["destroy", "--scope", scope, "--json"], env)).stdout);
    const text = readFileSync(summary, "utf8");
    expect(text.startsWith("# earlier step\n\n### ✅ sponson apply `preview/")).toBe(true);
    const [, applied, previewed, destroyed] = text.split(/^### /m);
    expect(applied).toContain(`sponson apply \`preview/${scope}\`: succeeded`);
    expect(applied).toContain(
      "| line | op | diff | result | item | parent |\n| --- | --- | --- | --- | --- | --- |\n",
    );
    expect(applied).toContain(
      `| callback | \`auth0.callbackUrl\` | create | created | \`${urls(scope)[0]}\` | \`${DEMO_PARENT}\` |`,
    );
    expect(applied?.match(/^\| (callback|logout|origin) \|/gm)).toHaveLength(3);
    expect(previewed).toContain(
      `| logout | \`auth0.logoutUrl\` | unchanged | unchanged | \`${urls(scope)[1]}\``,
    );
    expect(destroyed).toContain(`sponson destroy \`preview/${scope}\`: succeeded`);
    expect(destroyed).toContain(`Run \`${run.run.id}\`: 3 removed.`);
  });

  it("on a terminal a spinner counts the plan lines while the same lines are printed", async ({ expect }) => {
    const scope = freshPr();
    // util-linux `script` gives the CLI a pseudo-terminal, as a person's shell would.
    const command = `node bin/sponson.mjs apply --plan ${EXAMPLE_PLAN} --scope ${scope}`;
    const { code, stdout } = await run("script", ["-qec", command, "/dev/null"], admin).done;
    expect(code).toBe(0);
    expect(stdout).toContain(`⠋ apply preview/${scope}: 0/3 lines`);
    expect(stdout).toContain(`apply preview/${scope}: 3/3 lines`);
    // What stays on screen: the text after each line's last "clear line", i.e. the plain lines.
    const onScreen = stdout
      .split(/\r?\n/)
      .map((l) => (l.split("\x1b[2K").at(-1) ?? "").replace(/\r$/, ""))
      .filter(Boolean);
    expect(onScreen.slice(1)).toEqual([
      `  +  callback  auth0.callbackUrl  created  ${urls(scope)[0]}`,
      `  +  logout  auth0.logoutUrl  created  ${urls(scope)[1]}`,
      `  +  origin  auth0.webOrigin  created  ${urls(scope)[2]}`,
      expect.stringMatching(/^succeeded in \d+\.\ds: 3 created$/),
    ]);
  });

  it("a run that fails exits 1, and the summary names the error", async ({ expect }) => {
    const scope = freshPr();
    const plan = planFile("missing-client.json", (p) => {
      p.lines = p.lines
        .slice(0, 1)
        .map((l) => ({ ...l, params: { ...(l.params as object), client: "no-such-app" } }));
    });
    const summary = scratchFile(`summary-${scope}.md`);
    const { code, stdout } = await sponson(["apply", "--plan", plan, "--scope", scope], {
      ...admin,
      GITHUB_STEP_SUMMARY: summary,
    });
    expect(code).toBe(1);
    expect(stdout).toMatch(/x {2}callback {2}auth0\.callbackUrl {2}failed .*\(PROVIDER_ERROR: auth0: 404/);
    expect(stdout).toMatch(/^failed in /m);
    const text = readFileSync(summary, "utf8");
    expect(text).toContain(`### ❌ sponson apply \`preview/${scope}\`: failed`);
    expect(text).toContain("| failed (PROVIDER_ERROR) |");
  });

  it("preview writes nothing; rollback removes what the last apply created; destroy empties the scope", async ({
    expect,
  }) => {
    const scope = freshPr();
    const preview = await sponson(["preview", "--plan", EXAMPLE_PLAN, "--scope", scope, "--json"], admin);
    expect(preview.code).toBe(0);
    expect(JSON.parse(preview.stdout).lines.map((l: { result: string }) => l.result)).toEqual([
      "would-create",
      "would-create",
      "would-create",
    ]);

    const applied = JSON.parse(
      (await sponson(["apply", "--plan", EXAMPLE_PLAN, "--scope", scope, "--json"], admin)).stdout,
    );
    const rollback = await sponson(["rollback", "--scope", scope, "--run", applied.run.id], admin);
    expect(rollback.code).toBe(0);
    expect(rollback.stdout).toMatch(
      /^rollback preview\/.+\n( {2}- .* removed .*\n){3}succeeded in .*: 3 removed\n$/,
    );

    expect((await sponson(["apply", "--plan", EXAMPLE_PLAN, "--scope", scope], admin)).code).toBe(0);
    const destroyed = await sponson(["destroy", "--scope", scope, "--wait"], admin);
    expect(destroyed.code).toBe(0);
    expect(destroyed.stdout).toContain("3 removed");
    const ledger = receiptSchema.parse(
      JSON.parse((await sponson(["ledger", "--scope", scope, "--json"], admin)).stdout),
    );
    expect(ledger.ledger).toEqual([]);
  });

  it("rollback of a run the scope never had exits 1 with NOT_FOUND", async ({ expect }) => {
    const scope = freshPr();
    const empty = planFile("empty.json", (p) => {
      p.lines = [];
    });
    expect((await sponson(["apply", "--plan", empty, "--scope", scope], admin)).code).toBe(0);
    const { code, stderr } = await sponson(["rollback", "--scope", scope, "--run", "run-nope"], admin);
    expect(code).toBe(1);
    expect(stderr).toContain("sponson: NOT_FOUND: no run run-nope in this scope");
  });

  it.for(["destroy", "rollback"])(
    "%s of a scope that has no receipt (a typo) prints why and exits 3",
    async (command, { expect }) => {
      const scope = freshPr();
      const { code, stdout } = await sponson([command, "--scope", scope], admin);
      expect(code).toBe(3);
      expect(stdout).toContain(`warning: scope preview/${scope} has no receipt`);
    },
  );

  it("an empty plan on a scope that owns entries exits 2 with EMPTY_PLAN; --allow-empty removes them", async ({
    expect,
  }) => {
    const scope = freshPr();
    const empty = planFile("empty.json", (p) => {
      p.lines = [];
    });
    expect((await sponson(["apply", "--plan", EXAMPLE_PLAN, "--scope", scope], admin)).code).toBe(0);
    const refused = await sponson(["apply", "--plan", empty, "--scope", scope], admin);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("sponson: EMPTY_PLAN:");
    expect(refused.stderr).toContain("--allow-empty");
    const allowed = await sponson(["apply", "--plan", empty, "--scope", scope, "--allow-empty"], admin);
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toContain("3 removed");
  });
});

describe("sponson --repository", () => {
  it("names the repository the scope belongs to; one the service does not serve exits 1 with NOT_FOUND", async ({
    expect,
  }) => {
    const named = await sponson(
      ["ledger", "--scope", freshPr(), "--repository", "Codertocat/Hello-World"],
      admin,
    );
    expect(named.code).toBe(0);
    expect(named.stdout).toMatch(/^preview\/pr-\d+ in Codertocat\/Hello-World: revision 0/);
    const other = await sponson(["ledger", "--scope", freshPr()], {
      ...admin,
      SPONSON_REPOSITORY: "someone/else",
    });
    expect(other.code).toBe(1);
    expect(other.stderr).toContain("sponson: NOT_FOUND: repository someone/else is not configured");
  });

  it("in GitHub Actions the job's own repository is named ($GITHUB_REPOSITORY)", async ({ expect }) => {
    const actions = { ...admin, GITHUB_ACTIONS: "true", GITHUB_REPOSITORY: "someone/else" };
    const { code, stderr } = await sponson(["ledger", "--scope", freshPr()], actions);
    expect(code).toBe(1);
    expect(stderr).toContain("repository someone/else is not configured");
  });
});

describe("sponson ledger", () => {
  it("shows what the scope owns and its runs, as a table or as the receipt in JSON", async ({ expect }) => {
    const scope = freshPr();
    const applied = JSON.parse(
      (await sponson(["apply", "--plan", EXAMPLE_PLAN, "--scope", scope, "--json"], admin)).stdout,
    );
    const table = await sponson(["ledger", "--scope", scope], admin);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(
      new RegExp(`^preview/${scope} in Codertocat/Hello-World: revision \\d+, 3 entries, 0 open intents`),
    );
    expect(table.stdout).toMatch(/^LINE +OP +KEY +HOLDING +PARENT +RUN$/m);
    expect(table.stdout).toMatch(
      new RegExp(
        `^callback +auth0\\.callbackUrl +${urls(scope)[0]} +created +${DEMO_PARENT} +${applied.run.id}$`,
        "m",
      ),
    );
    expect(table.stdout).toMatch(new RegExp(`^${applied.run.id} +apply +succeeded +\\S+ +3`, "m"));

    const json = await sponson(["ledger", "--scope", scope, "--json"], admin);
    const receipt = receiptSchema.parse(JSON.parse(json.stdout));
    expect(receipt.ledger.map((e) => e.key)).toEqual(urls(scope));

    const viewer = { SPONSON_TOKEN: await mintToken("viewer") };
    const scopes = scopeListSchema.parse(JSON.parse((await sponson(["ledger", "--json"], viewer)).stdout));
    expect(scopes.scopes).toContainEqual(
      expect.objectContaining({ environment: "preview", scope, entries: 3 }),
    );
    expect((await sponson(["ledger"], viewer)).stdout).toMatch(
      new RegExp(`^Codertocat/Hello-World +preview +${scope} +3 `, "m"),
    );
  });
});

describe("--var: values from CI", () => {
  const varPlan = () =>
    planFile(`vars-${freshPr()}.json`, (plan) => {
      plan.lines = plan.lines.slice(0, 1);
      (plan.lines[0]?.params as Record<string, string>).url = "{vars.url}/callback";
    });

  it("apply --var url=… fills {vars.url} with the URL the deploy step printed; repeatable", async ({
    expect,
  }) => {
    const scope = freshPr();
    const deployed = `https://my-app-git-${scope}.vercel.app`;
    const { code, stdout, stderr } = await sponson(
      [
        "apply",
        "--plan",
        varPlan(),
        "--scope",
        scope,
        "--var",
        `url=${deployed}`,
        "--var",
        "note=a=b",
        "--json",
      ],
      admin,
    );
    expect([code, stderr.includes("created")]).toEqual([0, true]);
    expect(runResultSchema.parse(JSON.parse(stdout)).lines[0]?.key).toBe(`${deployed}/callback`);
  });

  it("preview without the var the plan uses exits 2 naming it; a malformed --var exits 2 before sending", async ({
    expect,
  }) => {
    const missing = await sponson(["preview", "--plan", varPlan(), "--scope", freshPr()], admin);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("{vars.url}");
    expect(missing.stderr).toContain("--var url=");
    for (const bad of ["url", "URL=x", "=x", "url="]) {
      const run = await sponson(["preview", "--plan", varPlan(), "--scope", freshPr(), "--var", bad], admin);
      expect([bad, run.code, run.stderr]).toEqual([bad, 2, expect.stringContaining("--var")]);
    }
  });

  it("a var that is a wildcard over a public suffix is refused (exit 2) with why", async ({ expect }) => {
    const run = await sponson(
      ["apply", "--plan", varPlan(), "--scope", freshPr(), "--var", "url=https://*.vercel.app"],
      admin,
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("public suffix");
  });
});
