/**
 * A bare domain the provider matches with every subdomain (reCAPTCHA's allowed domains) is a
 * wildcard in all but spelling (docs/design.md, "Security model", the URL shape check): `vercel.app`
 * there lets every Vercel deployment in the world use the key, as `*.vercel.app` would. Such an item
 * is refused when it is itself a public suffix (the Public Suffix List, private section included);
 * the same bare domain in a list that matches it exactly (Firebase's authorized domains) is not.
 */
import { describe, expect, it } from "vitest";
import { ALL_URL_CHECKS, itemShapeProblems } from "../../shared/url-shape";

const subdomains = (item: string, checks = ALL_URL_CHECKS) =>
  itemShapeProblems(item, checks, { coversSubdomains: true });

describe("a bare domain that matches its subdomains", () => {
  it.each([
    "vercel.app",
    "web.app",
    "firebaseapp.com",
    "netlify.app",
    "pages.dev",
    "github.io",
    "herokuapp.com",
    "com",
    "co.uk",
    "Vercel.APP.",
  ])("%s is refused as a public suffix, saying why and what to write instead", (item) => {
    const problems = subdomains(item);
    expect(problems.map((p) => p.rule)).toEqual(["urlChecks.publicSuffixWildcard"]);
    expect(problems[0]?.message).toContain("a public suffix");
    expect(problems[0]?.message).toContain("admits its subdomains");
    expect(problems[0]?.message).toMatch(/instead/);
  });

  it.each([
    "pr-1.preview.example.com",
    "example.com",
    "preview.example.co.uk",
    "my-app-git-feat-x.vercel.app",
    "acme-prod.web.app",
    "localhost",
    "127.0.0.1",
  ])("%s is allowed: a name someone owns, or one that never leaves the machine", (item) => {
    expect(subdomains(item)).toEqual([]);
  });

  it("the same bare domain in a list that matches it exactly is not judged so", () => {
    expect(itemShapeProblems("vercel.app")).toEqual([]);
    expect(itemShapeProblems("web.app", ALL_URL_CHECKS, { coversSubdomains: false })).toEqual([]);
  });

  it("an environment that turns publicSuffixWildcard off admits it, as it admits *.vercel.app", () => {
    expect(subdomains("vercel.app", { ...ALL_URL_CHECKS, publicSuffixWildcard: false })).toEqual([]);
  });
});
