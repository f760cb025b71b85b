/**
 * action.yml's run step, executed the way the runner would (bash, inputs as INPUT_* variables,
 * GITHUB_OUTPUT and RUNNER_TEMP files) against the local service: arguments, outputs, exit code.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, it } from "vitest";
import { runResultSchema } from "../../shared/schemas/run";
import { type CliResult, cliEnv, EXAMPLE_PLAN, freshPr, mintToken, ROOT } from "./helpers";

/** The `run: |` block of the step with `id: run`: our own file, so indentation is enough to find it. */
function runStepScript(): string {
  const lines = readFileSync(join(ROOT, "action.yml"), "utf8").split("\n");
  const step = lines.findIndex((l) => l.trim() === "id: run");
  const start = lines.findIndex((l, i) => i > step && l.trim() === "run: |");
  const indent = (lines[start + 1]?.match(/^ */)?.[0] ?? "").length;
  const body: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.trim() !== "" && (line.match(/^ */)?.[0] ?? "").length < indent) break;
    body.push(line.slice(indent));
  }
  return body.join("\n");
}

function runStep(inputs: Record<string, string>, env: Record<string, string>) {
  const temp = mkdtempSync(join(tmpdir(), "sponson-action-"));
  const output = join(temp, "github-output");
  writeFileSync(output, "");
  const child = spawn("bash", ["-e", "-c", runStepScript()], {
    cwd: ROOT,
    env: cliEnv({
      GITHUB_ACTION_PATH: ROOT,
      RUNNER_TEMP: temp,
      GITHUB_OUTPUT: output,
      SPONSON_AUDIENCE: "",
      INPUT_COMMAND: "apply",
      INPUT_PLAN: EXAMPLE_PLAN,
      INPUT_ENVIRONMENT: "preview",
      INPUT_SCOPE: "",
      INPUT_WAIT: "false",
      INPUT_WAIT_TIMEOUT: "",
      ...inputs,
      ...env,
    }),
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise<CliResult & { outputs: Record<string, string> }>((resolve) => {
    child.once("close", (code) => {
      const outputs = Object.fromEntries(
        readFileSync(output, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
      );
      resolve({ code, stdout, stderr, outputs });
    });
  });
}

let admin: string;
beforeAll(async () => {
  admin = await mintToken("admin");
});

describe("action.yml", () => {
  it("applies the plan, streams its lines to the log and sets run-id, status and result", async ({
    expect,
  }) => {
    const scope = freshPr();
    const { code, stderr, outputs } = await runStep(
      { INPUT_SCOPE: scope, INPUT_WAIT: "true" },
      { SPONSON_TOKEN: admin },
    );
    expect(code).toBe(0);
    expect(stderr).toContain(`apply preview/${scope}`);
    expect(stderr).toMatch(/^succeeded in .*: 3 created$/m);
    expect(outputs.status).toBe("succeeded");
    const result = runResultSchema.parse(JSON.parse(readFileSync(outputs.result as string, "utf8")));
    expect(outputs["run-id"]).toBe(result.run.id);
    expect(result.run.scope).toBe(scope);
  });

  it("a refused run sets status=refused and keeps the CLI's exit code", async ({ expect }) => {
    const { code, outputs } = await runStep({ INPUT_SCOPE: freshPr() }, { SPONSON_TOKEN: "not-a-token" });
    expect(code).toBe(2);
    expect(outputs).toMatchObject({ status: "refused", "run-id": "" });
  });

  it("an unknown command is refused by the step itself", async ({ expect }) => {
    const { code, stdout } = await runStep({ INPUT_COMMAND: "unlock" }, { SPONSON_TOKEN: admin });
    expect(code).toBe(2);
    expect(stdout).toContain("::error::command must be apply, preview, destroy or rollback");
  });
});
