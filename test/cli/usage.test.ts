/** `--help` for every command, and usage mistakes exit 2 before anything is sent. */
import { describe, it } from "vitest";
import { COMMAND_NAMES } from "../../cli/commands-spec";
import { EXAMPLE_PLAN, scratchFile, sponson } from "./helpers";

describe("sponson --help and usage errors", () => {
  it("prints the command list, the environment it reads and the exit codes", async ({ expect }) => {
    const { code, stdout } = await sponson(["--help"]);
    expect(code).toBe(0);
    for (const name of COMMAND_NAMES) expect(stdout).toMatch(new RegExp(`^  ${name} `, "m"));
    expect(stdout).toContain("SPONSON_URL");
    expect(stdout).toContain("SPONSON_TOKEN");
    expect(stdout).toContain("Exit codes: 0 success; 1 run failed");
  });

  it.for(COMMAND_NAMES)(
    "`sponson %s --help` shows its usage, options and an example",
    async (name, { expect }) => {
      for (const args of [
        [name, "--help"],
        ["help", name],
      ]) {
        const { code, stdout, stderr } = await sponson(args);
        expect(code).toBe(0);
        expect(stderr).toBe("");
        expect(stdout).toContain(`Usage: sponson ${name}`);
        expect(stdout).toContain("Options:");
        expect(stdout).toMatch(new RegExp(`Examples:\\n  .*sponson ${name}`));
      }
    },
  );

  it.for([
    ["no command", [], /Usage: sponson <command>/],
    ["an unknown command", ["deploy"], /unknown command "deploy"/],
    ["a mistyped command", ["aply"], /unknown command "aply"\. Did you mean "apply"\?/],
    [
      "a mistyped flag",
      ["apply", "--plan", EXAMPLE_PLAN, "--sope", "pr-1"],
      /Unknown option '--sope'.* Did you mean --scope\?/,
    ],
    [
      "a mistyped subcommand",
      ["plan", "chek", EXAMPLE_PLAN],
      /unknown subcommand "chek"\. Did you mean "check"\?/,
    ],
    [
      "an unknown flag",
      ["apply", "--plan", EXAMPLE_PLAN, "--scope", "pr-1", "--force"],
      /Unknown option '--force'/,
    ],
    ["apply without --plan", ["apply", "--scope", "pr-1"], /--plan <file> is required/],
    [
      "a plan file that does not exist",
      ["apply", "--plan", "nope.json", "--scope", "pr-1"],
      /cannot read the plan/,
    ],
    ["a scope that is not a scope", ["apply", "--plan", EXAMPLE_PLAN, "--scope", "pr-0"], /must be pr-<n>/],
    ["no scope outside GitHub Actions", ["destroy"], /--scope is required/],
    [
      "an environment with capitals",
      ["destroy", "--env", "Preview", "--scope", "pr-1"],
      /not an environment name/,
    ],
    [
      "a wait timeout over the limit",
      ["destroy", "--scope", "pr-1", "--wait-timeout", "901"],
      /--wait-timeout/,
    ],
    [
      "a repository that is not owner/name",
      ["ledger", "--scope", "pr-1", "--repository", "acme"],
      /owner\/name/,
    ],
    [
      "an http:// service URL off loopback (the token would travel in clear)",
      ["destroy", "--scope", "pr-1", "--url", "http://sponson.example.com"],
      /must be https:\/\/ \(http:\/\/ only on loopback/,
    ],
    ["unlock without --reason", ["unlock", "scope:186853002/preview/pr-1"], /--reason is required/],
    [
      "a stray argument",
      ["apply", "extra", "--plan", EXAMPLE_PLAN, "--scope", "pr-1"],
      /unexpected argument "extra"/,
    ],
  ])("%s exits 2 with a message saying what to fix", async ([, args, message], { expect }) => {
    const { code, stderr, stdout } = await sponson(args as string[], { SPONSON_TOKEN: "unused" });
    expect(code).toBe(2);
    expect(stderr).toMatch(message as RegExp);
    expect(stdout).toBe("");
  });

  it("a plan that is not valid is refused locally, naming the field", async ({ expect }) => {
    const plan = scratchFile("invalid-plan.json", JSON.stringify({ version: 3, lines: [] }));
    const { code, stderr } = await sponson(["apply", "--plan", plan, "--scope", "pr-1"], {
      SPONSON_TOKEN: "unused",
    });
    expect(code).toBe(2);
    expect(stderr).toContain("is not valid");
    expect(stderr).toContain("version");
  });

  it("without SPONSON_TOKEN and outside GitHub Actions there are no credentials: exit 2", async ({
    expect,
  }) => {
    const { code, stderr } = await sponson(["locks"]);
    expect(code).toBe(2);
    expect(stderr).toContain("no credentials");
  });
});
