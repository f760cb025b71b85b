/**
 * A release is the tag of a commit whose package.json version has its own changelog section
 * (docs/releasing.md); the licence is Apache-2.0 in both places a tool looks for it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const read = (file: string) => readFileSync(join(ROOT, file), "utf8");
const pkg = JSON.parse(read("package.json")) as { version: string; license?: string; private?: boolean };
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

  it("the licence is Apache-2.0 (LICENSE and package.json), and nothing is published to npm", () => {
    expect(read("LICENSE")).toMatch(/Apache License\s+Version 2\.0, January 2004/);
    expect(pkg.license).toBe("Apache-2.0");
    expect(pkg.private).toBe(true);
  });
});
