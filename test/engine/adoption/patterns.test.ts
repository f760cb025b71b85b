/**
 * Adoption patterns read the plan's placeholders backwards (shared/adoption-patterns.ts): one
 * placeholder names the pull request, the text around it must match exactly, and what is between
 * must be a value the placeholder can have. No regular expression is built from a pattern.
 */
import { describe, expect, it } from "vitest";
import { matchEntry, matchPattern, parsePattern } from "../../../shared/adoption-patterns";

function parsed(source: string, environment = "preview") {
  const p = parsePattern(source, environment);
  if (!p.ok) throw new Error(p.problem);
  return p.pattern;
}

describe("parsePattern", () => {
  it("takes {pr}, {scope}, {branch} and {branchSlug}, with {environment} filled in", () => {
    expect(parsed("https://pr-{pr}.{environment}.example.com")).toMatchObject({
      kind: "pr",
      prefix: "https://pr-",
      suffix: ".preview.example.com",
    });
    expect(parsed("https://{scope}.example.com")).toMatchObject({ kind: "pr", scopeForm: true });
    expect(parsed("https://app-git-{branch}-acme.vercel.app")).toMatchObject({ kind: "branch" });
    expect(parsed("https://{branchSlug}.example.com")).toMatchObject({ kind: "branch" });
  });

  it.each([
    ["https://preview.example.com", "nothing names a pull request"],
    ["https://{sha}.example.com", "cannot be read back"],
    ["https://{vars.url}/x", "cannot be read back"],
    ["https://pr-{pr}-{branch}.example.com", "more than one placeholder"],
    ["{pr}", "alone matches anything"],
  ])("refuses %s (%s)", (source, problem) => {
    const p = parsePattern(source, "preview");
    expect(p.ok).toBe(false);
    expect(p.ok ? "" : p.problem).toContain(problem);
  });
});

describe("matchPattern", () => {
  const pr = parsed("https://pr-{pr}.preview.example.com");
  it("reads the number between the literal text, and nothing else", () => {
    expect(matchPattern(pr, "https://pr-42.preview.example.com")).toEqual({ pattern: pr.source, pr: 42 });
    for (const key of [
      "https://pr-.preview.example.com",
      "https://pr-042.preview.example.com",
      "https://pr-4x.preview.example.com",
      "https://pr-42.preview.example.com/callback",
      "http://pr-42.preview.example.com",
      "https://pr-12345678901.preview.example.com",
    ])
      expect(matchPattern(pr, key), key).toBeNull();
  });

  it("{scope} reads pr-<n>; {branch} reads a DNS-label slug only", () => {
    expect(matchPattern(parsed("https://{scope}.example.com"), "https://pr-7.example.com")).toMatchObject({
      pr: 7,
    });
    expect(matchPattern(parsed("https://{scope}.example.com"), "https://main.example.com")).toBeNull();
    const branch = parsed("https://app-git-{branch}-acme.vercel.app");
    expect(matchPattern(branch, "https://app-git-feature-login-acme.vercel.app")).toMatchObject({
      branch: "feature-login",
    });
    expect(matchPattern(branch, "https://app-git-Feature_X-acme.vercel.app")).toBeNull();
  });

  it("an entry two patterns claim is matched twice (ambiguous), one neither claims not at all", () => {
    const patterns = [
      parsed("https://{branch}.staging.example.com"),
      parsed("https://app-{pr}.staging.example.com"),
    ];
    expect(matchEntry(patterns, "https://app-12.staging.example.com")).toHaveLength(2);
    expect(matchEntry(patterns, "https://login.staging.example.com")).toEqual([
      { pattern: "https://{branch}.staging.example.com", branch: "login" },
    ]);
    expect(matchEntry(patterns, "http://localhost:3000/callback")).toEqual([]);
  });
});
