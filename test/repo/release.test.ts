/**
 * A release is the tag of a commit whose package.json version has its own changelog section
 * (docs/releasing.md); the licence is Apache-2.0 in both places a tool looks for it; the CLI's
 * package (packages/cli) is the one thing published, at the same version; CI runs .ci/run.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

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
