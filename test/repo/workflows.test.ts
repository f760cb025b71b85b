/**
 * Every workflow and action file of the repository is valid for GitHub Actions (checked with
 * @action-validator/core against the published schemas), and every place that tells a reader how to
 * use this repository's Action says it in one line: `uses: <owner>/sponson-edge@v0` (docs/releasing.md,
 * "Tags": `v0` is the only major tag before 1.0; `<owner>` is where the reader's copy lives, and a
 * spelling GitHub cannot resolve, so a workflow copied unedited fails instead of running a stranger's
 * `your-org/sponson-edge`).
 */
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const read = (file: string) => readFileSync(join(ROOT, file), "utf8");
const filesIn = (dir: string, ext: RegExp) =>
  readdirSync(join(ROOT, dir))
    .filter((f) => ext.test(f))
    .map((f) => `${dir}/${f}`);

interface ValidationState {
  errors: { code: string; path?: string; title: string; detail?: string; states?: ValidationState[] }[];
}
// A CommonJS wasm module: loaded the way Node loads it.
const validator = createRequire(import.meta.url)("@action-validator/core") as {
  validateWorkflow(text: string): ValidationState;
  validateAction(text: string): ValidationState;
};

const USES_LINE = "uses: <owner>/sponson-edge@v0";

const WORKFLOWS = [...filesIn(".github/workflows", /\.ya?ml$/), ...filesIn("examples/workflows", /\.ya?ml$/)];

/**
 * What GitHub runs but the validator's schema (0.6.0) does not know yet, each replaced by something
 * it knows before validating, so the rest of the file is still checked; a control below shows each
 * gap, so the replacement goes once the validator learns it.
 */
const SCHEMA_GAPS = [
  { what: "runs.using: node24", find: /^(\s+using:\s*)node24[ \t]*$/m, replace: "$1node20" },
  {
    what: "permissions: attestations",
    find: /^[ \t]+attestations: (?:write|read|none)[ \t]*\n/gm,
    replace: "",
  },
];
const known = (text: string) => SCHEMA_GAPS.reduce((t, gap) => t.replace(gap.find, gap.replace), text);

/** Docs, examples and package manifests: where a reader copies a `uses:` line or a repository URL from. */
const TEXTS = [
  "README.md",
  "CHANGELOG.md",
  "action.yml",
  "package.json",
  "packages/cli/package.json",
  ...filesIn("docs", /\.md$/),
  ...WORKFLOWS.filter((f) => f.startsWith("examples/")),
  ...filesIn("examples/production", /./),
  ...filesIn("schemas", /\.json$/),
];

/**
 * Each `uses:` of this Action (any `…sponson-edge…` value): a YAML line, where nothing may follow it
 * (no comment to copy along), or inline code in prose, where the value is what counts.
 */
function usesOfThisAction(): { at: string; value: string; rest: string }[] {
  return TEXTS.flatMap((file) =>
    read(file)
      .split("\n")
      .flatMap((line, i) =>
        [...line.matchAll(/(`?)uses:\s*([^\s`]*sponson-edge[^\s`]*)(.*)$/g)].map((m) => ({
          at: `${file}:${i + 1}`,
          value: `uses: ${m[2]}`,
          rest: m[1] === "`" ? "" : (m[3] ?? "").trim(),
        })),
      ),
  );
}

describe("workflow and action files", () => {
  it("finds the repository's workflows and the example", () => {
    expect(WORKFLOWS).toEqual(
      expect.arrayContaining([
        ".github/workflows/ci.yml",
        ".github/workflows/release.yml",
        "examples/workflows/preview.yml",
      ]),
    );
  });

  it.for(WORKFLOWS)("%s is a valid workflow", (file) => {
    expect(validator.validateWorkflow(known(read(file))).errors).toEqual([]);
  });

  it("action.yml is a valid action", () => {
    expect(validator.validateAction(known(read("action.yml"))).errors).toEqual([]);
  });

  it("control: each schema gap is one (the validator refuses it, and accepts the replacement)", () => {
    const action = "name: a\ndescription: d\nruns:\n  using: node24\n  main: x.js\n";
    const workflow =
      "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    permissions:\n      contents: read\n      attestations: write\n    steps:\n      - run: 'true'\n";
    expect(validator.validateAction(action).errors.length).toBeGreaterThan(0);
    expect(validator.validateAction(known(action)).errors).toEqual([]);
    expect(validator.validateWorkflow(workflow).errors.length).toBeGreaterThan(0);
    expect(validator.validateWorkflow(known(workflow)).errors).toEqual([]);
  });

  it("control: the validator refuses a broken workflow and a broken action", () => {
    expect(validator.validateWorkflow("name: x\njobs: 3\n").errors.length).toBeGreaterThan(0);
    expect(validator.validateAction("name: x\nruns:\n  using: node20\n").errors.length).toBeGreaterThan(0);
  });
});

describe("the one way to use the Action", () => {
  it(`every uses: of this Action in docs and examples is "${USES_LINE}"`, () => {
    const uses = usesOfThisAction();
    // README, docs/cli.md (twice), docs/releasing.md, docs/deploy.md, the example workflow.
    expect(uses.length).toBeGreaterThanOrEqual(6);
    for (const file of ["README.md", "docs/deploy.md", "examples/workflows/preview.yml"])
      expect(
        uses.some((u) => u.at.startsWith(`${file}:`)),
        file,
      ).toBe(true);
    expect(uses.filter((u) => u.value !== USES_LINE || u.rest !== "")).toEqual([]);
  });

  it("nothing names the repository as your-org (a GitHub account anyone may hold)", () => {
    const found = TEXTS.flatMap((file) =>
      read(file)
        .split("\n")
        .flatMap((line, i) => (line.includes("your-org") ? [`${file}:${i + 1}`] : [])),
    );
    expect(found).toEqual([]);
  });
});
