/**
 * The URL shape check on items that admit their subdomains (docs/design.md, "Security model"): a
 * Turnstile hostname lets the widget run on that host and every name under it, so `vercel.app` in
 * the list is what `*.vercel.app` is in a redirect list: anyone's site there passes. Such an item
 * is judged as the wildcard it amounts to, under the same rule and the same opt-out.
 */
import { describe, expect, it } from "vitest";
import { itemShapeProblems } from "../../shared/url-shape";

const SUBDOMAINS = { coversSubdomains: true } as const;
const rules = (item: string, checks?: Parameters<typeof itemShapeProblems>[1]) =>
  itemShapeProblems(item, checks, SUBDOMAINS).map((p) => p.rule);

describe("a host that covers its subdomains", () => {
  it.each(["vercel.app", "pages.dev", "netlify.app", "github.io", "com", "co.uk", "Vercel.App."])(
    "%s, a public suffix, is refused as a wildcard over it, saying why and what to write instead",
    (item) => {
      const problems = itemShapeProblems(item, undefined, SUBDOMAINS);
      expect(problems.map((p) => p.rule)).toEqual(["urlChecks.publicSuffixWildcard"]);
      expect(problems[0]?.message).toContain("covers every name under");
      expect(problems[0]?.message).toContain("public suffix");
      expect(problems[0]?.message).toMatch(/instead/);
    },
  );

  it.each([
    "pr-1.vercel.app",
    "my-app-git-feat-x-acme.vercel.app",
    "pr-1.preview.example.com",
    "example.com",
    "example.co.uk",
    "localhost",
    "127.0.0.1",
  ])("%s (a registrable name, or loopback) is allowed", (item) => {
    expect(rules(item)).toEqual([]);
  });

  it("the control: without the op saying so, a bare public suffix is no wildcard", () => {
    expect(itemShapeProblems("vercel.app").map((p) => p.rule)).toEqual([]);
  });

  it("the environment's publicSuffixWildcard opt-out turns it off, as for a written wildcard", () => {
    expect(rules("vercel.app", { publicSuffixWildcard: false, plainHttp: true })).toEqual([]);
  });
});
