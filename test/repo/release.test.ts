/**
 * A release is the tag of a commit whose package.json version has its own changelog section
 * (docs/releasing.md); the licence is Apache-2.0 in both places a tool looks for it; the CLI's
 * package (packages/cli) is the one thing published, at the same version; CI runs .ci/run; the
 * release workflow checks, tags, publishes with provenance and no token, and attaches an SBOM.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { releaseNotes } from "../../scripts/release-notes.mjs";

const ROOT = join(import.meta.dirname, "..", "..");
const read = (file: string) => readFileSync(join(ROOT, file), "utf8");
const pkg = JSON.parse(read("package.json")) as { version: string; license?: string; private?: boolean };
const cli = JSON.parse(read("packages/cli/package.json")) as {
  version: string;
  license?: string;
  private?: boolean;
  bin?: Record<string, string>;
  files?: string[];
  dependencies?: object;
  scripts?: Record<string, string>;
};
const lock = JSON.parse(read("package-lock.json")) as {
  version: string;
  packages: Record<string, { version?: string }>;
};

describe("release metadata", () => {
  it("package.json carries a semantic version, the same in the lock file", () => {
    expect(pkg.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(lock.version).toBe(pkg.version);
    expect(lock.packages[""]?.version).toBe(pkg.version);
  });

  it("the changelog has a section for that version and an Unreleased one above it", () => {
    const changelog = read("CHANGELOG.md");
    const sections = [...changelog.matchAll(/^## \[([^\]]+)\]/gm)].map((m) => m[1]);
    expect(sections[0]).toBe("Unreleased");
    expect(sections).toContain(pkg.version);
    expect(changelog).toContain(`[${pkg.version}]: `);
  });

  it("the licence is Apache-2.0 (LICENSE and package.json); only the CLI's package is published", () => {
    expect(read("LICENSE")).toMatch(/Apache License\s+Version 2\.0, January 2004/);
    expect(pkg.license).toBe("Apache-2.0");
    expect(pkg.private).toBe(true);
    expect(cli.private).toBeUndefined();
    expect(cli.license).toBe("Apache-2.0");
  });

  it("the CLI's package carries the release's version and nothing but its bin and bundle", () => {
    expect(cli.version).toBe(pkg.version);
    expect(cli.bin).toEqual({ sponson: "bin/sponson.mjs" });
    expect(cli.files).toEqual(["bin/sponson.mjs", "dist/sponson.mjs"]);
    expect(cli.dependencies).toBeUndefined();
    expect(cli.scripts?.prepack).toContain("cli/build.mjs --out dist/sponson.mjs");
  });

  it("the repository's own workflow runs .ci/run on pushes and pull requests and checks the Action bundle", () => {
    const workflow = read(".github/workflows/ci.yml");
    expect(workflow).toMatch(/^on:\n {2}push:\n(?:.*\n)*? {2}pull_request:/m);
    expect(workflow).toMatch(/run: \.ci\/run$/m);
    expect(workflow).toMatch(/npm run build:action\n\s+git diff --exit-code -- dist\/action\.js/);
  });
});

describe("the release workflow (.github/workflows/release.yml)", () => {
  const workflow = read(".github/workflows/release.yml");
  const jobs = workflow.slice(workflow.indexOf("\njobs:\n"));
  /** Where a step's command first appears (past the header's comments): the order of the steps that matter. */
  const at = (text: string) => {
    const i = jobs.indexOf(text);
    expect(i, text).toBeGreaterThan(-1);
    return i;
  };

  /** One job's text: from its key to the next job's. */
  const job = (name: string) => {
    const from = jobs.indexOf(`\n  ${name}:\n`);
    expect(from, name).toBeGreaterThan(-1);
    const next = jobs.slice(from + 1).search(/\n {2}[a-z-]+:\n/);
    return next === -1 ? jobs.slice(from) : jobs.slice(from, from + 1 + next);
  };

  it("runs on a push to main that touches package.json, and releases only a version with no tag", () => {
    expect(workflow).toMatch(/^on:\n {2}push:\n {4}branches: \[main\]\n {4}paths: \[package\.json\]$/m);
    expect(job("version")).toContain('git rev-parse -q --verify "refs/tags/v$version"');
    // A version whose [Unreleased] still has entries is not this commit's: refused, never tagged.
    expect(job("version")).toContain("node scripts/release-notes.mjs Unreleased");
    // Every later job waits for the version's and runs only for a version not tagged yet.
    for (const name of ["check", "release"]) {
      expect(job(name)).toMatch(/\n {4}needs: (?:version|\[version, check\])\n/);
      expect(job(name)).toContain("if: needs.version.outputs.new == 'true'");
    }
    expect(job("release")).toContain("needs: [version, check]");
  });

  it("runs the tests where nothing can be written: no write permission, no stored git credential", () => {
    expect(workflow).toMatch(/^permissions:\n {2}contents: read\n/m);
    expect(job("check")).toContain("run: .ci/run");
    expect(job("check")).not.toContain("permissions:");
    expect(job("check")).toContain("persist-credentials: false");
    expect(job("release")).not.toContain(".ci/run");
  });

  it("checks everything (.ci/run) before it builds, publishes or tags", () => {
    const check = at("run: .ci/run");
    for (const later of ["npm pack", "npm sbom", "npm publish", "git tag -a", "gh release create"])
      expect(at(later), later).toBeGreaterThan(check);
    expect(at("git diff --exit-code -- dist/action.js")).toBeGreaterThan(check);
  });

  it("publishes the CLI with provenance through trusted publishing: OIDC, no npm token anywhere", () => {
    expect(job("release")).toMatch(/^ {6}id-token: write$/m);
    expect(workflow).toContain("npm publish --provenance");
    expect(workflow).toContain("npm install --global npm@11");
    expect(workflow).not.toMatch(/NPM_TOKEN|NODE_AUTH_TOKEN|secrets\.|^\s+registry-url:/m);
    // npm's provenance check: the package names the repository it is built in.
    expect(workflow).toContain(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the workflow's shell expansion, matched as written
      'npm pkg set "repository.url=git+https://github.com/${GITHUB_REPOSITORY}.git"',
    );
  });

  it("tags vX.Y.Z, moves the major tag, and attaches the tarball and a CycloneDX SBOM to the release", () => {
    expect(workflow).toContain('git tag -a "v$VERSION"');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the workflow's shell expansion, matched as written
    expect(workflow).toContain('echo "major=v${version%%.*}"');
    expect(workflow).toContain('git tag -f -a "$MAJOR"');
    expect(workflow).toContain('git push --force origin "$MAJOR"');
    expect(workflow).toContain(
      'npm sbom --sbom-format cyclonedx > "release-assets/sponson-edge-$VERSION.cdx.json"',
    );
    expect(workflow).toContain("npm pack --pack-destination ../../release-assets");
    expect(workflow).toMatch(/gh release create "v\$VERSION" --verify-tag .*\n.*release-assets\/\*/);
  });

  it("attests the Action's dist with a build provenance attestation", () => {
    expect(job("release")).toMatch(/^ {6}attestations: write$/m);
    expect(workflow).toMatch(
      /uses: actions\/attest-build-provenance@v\d+\n(?:.*\n)*? {12}dist\/action\.js$/m,
    );
  });

  it("the release's notes are the changelog's section of the version", () => {
    const notes = releaseNotes(read("CHANGELOG.md"), pkg.version);
    expect(notes).not.toBeNull();
    expect(notes).not.toContain(`## [${pkg.version}]`);
    expect(notes).not.toContain("## [");
    expect(releaseNotes(read("CHANGELOG.md"), "99.0.0")).toBeNull();
    expect(releaseNotes("## [Unreleased]\n\n## [1.0.0] - 2027-01-01\n\n- a\n", "Unreleased")).toBeNull();
    expect(releaseNotes("## [Unreleased]\n\n- b\n\n## [1.0.0]\n\n- a\n", "Unreleased")).toBe("- b");
    expect(
      releaseNotes("## [Unreleased]\n\n## [1.0.0] - 2027-01-01\n\n- a\n\n## [0.9.0]\n\n- b\n", "1.0.0"),
    ).toBe("- a");
  });
});
