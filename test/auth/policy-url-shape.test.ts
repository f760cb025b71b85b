/**
 * The preview-URL shape check (docs/design.md, "Security model"): an item whose wildcard covers a
 * registrable domain of a public suffix (the Public Suffix List, its private section included)
 * lets anyone who can make a site there match it; a plain `http://` item sends the callback in the
 * clear. Both are refused by default, whatever the item's shape: a URL, an origin, a bare domain.
 */
import { describe, expect, it } from "vitest";
import { itemShapeProblems } from "../../shared/url-shape";

const rules = (item: string, checks?: Parameters<typeof itemShapeProblems>[1]) =>
  itemShapeProblems(item, checks).map((p) => p.rule);

describe("a wildcard over a public suffix", () => {
  it.each([
    "https://*.vercel.app/callback",
    "https://*.netlify.app/callback",
    "https://*.pages.dev/callback",
    "https://*.github.io/callback",
    "https://*.web.app/__/auth/handler",
    "https://*.herokuapp.com/callback",
    "https://*-site.netlify.app/callback",
    "https://*.com/callback",
    "https://my-app-*.vercel.app",
    "https://*.vercel.app:8443/cb",
    "https://*.Vercel.APP./cb",
    "https://user@*.vercel.app/cb",
    "https://*.co.uk",
    "*.vercel.app",
    "*.web.app",
    "*",
    "https://*",
  ])("%s is refused, saying why and what to write instead", (item) => {
    const problems = itemShapeProblems(item);
    expect(problems.map((p) => p.rule)).toEqual(["urlChecks.publicSuffixWildcard"]);
    expect(problems[0]?.message).toMatch(/public suffix|every/);
    expect(problems[0]?.message).toMatch(/instead/);
  });

  it.each([
    "https://*.preview.example.com/callback",
    "https://*.preview.example.com",
    "https://pr-*.preview.example.com/cb",
    "https://*.example.com/cb",
    "https://*.example.co.uk/cb",
    "*.preview.example.com",
    "https://my-app-git-feat-x.vercel.app/callback",
    "https://pr-1.preview.example.com/cb/*",
    "https://pr-1.preview.example.com/**",
    "sponson-demo.firebaseapp.com",
    "localhost",
    "com.example.app://callback",
  ])("%s is allowed", (item) => {
    expect(rules(item)).toEqual([]);
  });
});

describe("plain http", () => {
  it.each([
    "http://pr-1.preview.example.com/callback",
    "HTTP://pr-1.preview.example.com",
    "http://localhost.attacker.example/cb",
    "http://localhost@attacker.example/cb",
    "http://127.0.0.2.nip.io/cb",
  ])("%s is refused", (item) => {
    const problems = itemShapeProblems(item);
    expect(problems.map((p) => p.rule)).toEqual(["urlChecks.plainHttp"]);
    expect(problems[0]?.message).toContain("https://");
  });

  it.each([
    "http://localhost:3000/callback",
    "http://localhost",
    "http://127.0.0.1:8787/cb",
    "http://[::1]:3000/cb",
    "https://pr-1.preview.example.com/cb",
  ])("%s (loopback, or https) is allowed", (item) => {
    expect(rules(item)).toEqual([]);
  });

  it("an item failing both rules names both", () => {
    expect(rules("http://*.vercel.app/cb")).toEqual([
      "urlChecks.publicSuffixWildcard",
      "urlChecks.plainHttp",
    ]);
  });
});

describe("an environment's opt-out turns one rule off, never the other", () => {
  it("publicSuffixWildcard: false", () => {
    const checks = { publicSuffixWildcard: false, plainHttp: true };
    expect(rules("https://*.vercel.app/cb", checks)).toEqual([]);
    expect(rules("http://*.vercel.app/cb", checks)).toEqual(["urlChecks.plainHttp"]);
  });

  it("plainHttp: false", () => {
    const checks = { publicSuffixWildcard: true, plainHttp: false };
    expect(rules("http://pr-1.preview.example.com/cb", checks)).toEqual([]);
    expect(rules("http://*.vercel.app/cb", checks)).toEqual(["urlChecks.publicSuffixWildcard"]);
  });
});

describe("the host a browser reads, not the host as written", () => {
  const FULLWIDTH_VERCEL = "\uff56\uff45\uff52\uff43\uff45\uff4c";

  it.each([
    [`https://*.${FULLWIDTH_VERCEL}.app/cb`, "fullwidth letters"],
    ["https://*.ver\u00adcel.app/cb", "a soft hyphen"],
    ["https://*.ver\u200bcel.app/cb", "a zero-width space"],
    ["https://*.vercel\u3002app/cb", "an ideographic full stop"],
    ["https://*.%76ercel.app/cb", "a percent-escape"],
    ["https:///*.vercel.app/cb", "a third slash"],
    [`*.${FULLWIDTH_VERCEL}.app`, "fullwidth letters in a bare domain"],
  ])("%s (%s) is refused, and judged as *.vercel.app", (item) => {
    const problems = itemShapeProblems(item);
    expect(problems.map((p) => p.rule)).toEqual([
      "urlChecks.hostAsWritten",
      "urlChecks.publicSuffixWildcard",
    ]);
    expect(problems[0]?.message).toContain('a browser reads its host as "*.vercel.app"');
    expect(problems[0]?.message).toContain("punycode");
  });

  it("an invisible character is spelled out in the message", () => {
    expect(itemShapeProblems("https://*.ver\u200bcel.app/cb")[0]?.message).toContain(
      '("*.ver<U+200B>cel.app")',
    );
  });

  it.each(["https:/*.vercel.app", "https:*.vercel.app", "HTTPS:*.vercel.app/cb"])(
    "%s (no `//`) is refused, and judged as *.vercel.app",
    (item) => {
      const problems = itemShapeProblems(item);
      expect(problems.map((p) => p.rule)).toEqual([
        "urlChecks.hostAsWritten",
        "urlChecks.publicSuffixWildcard",
      ]);
      expect(problems[0]?.message).toMatch(/write "https:\/\/" with both slashes/);
    },
  );

  it("http: without `//` is refused and is still plain http", () => {
    expect(rules("http:pr-1.preview.example.com/cb")).toEqual([
      "urlChecks.hostAsWritten",
      "urlChecks.plainHttp",
    ]);
  });

  it.each([
    ["https://bücher.example/cb", "a name in another script (punycode is what a browser visits)"],
    ["https://pr-1.preview.example.\u212aom/cb", "a Kelvin sign that lowercases to k"],
    ["https://127.1/cb", "an IPv4 address a browser spells otherwise"],
    ["https://pr-1.preview.example.com\\@evil.example/cb", "a backslash a browser reads as a slash"],
    ["https://*.ver\u200ccel.app/cb", "a zero-width joiner (no host a browser reads)"],
  ])("%s (%s) is refused", (item) => {
    expect(rules(item)[0]).toBe("urlChecks.hostAsWritten");
  });

  it.each([
    "https://*.preview.example.com/callback",
    "https://*.preview.example.com",
    "*.preview.example.com",
    "https://pr-1.xn--bcher-kva.example/cb",
    "https://PR-1.Preview.Example.COM./cb",
    "https://user@pr-1.preview.example.com:8443/cb?x=1#y",
    "http://[::1]:3000/cb",
    "localhost:3000",
    "com.example.app://callback",
    "com.example.app:/oauth2redirect",
  ])("%s is written as a browser reads it", (item) => {
    expect(rules(item)).toEqual([]);
  });

  it("an environment's opt-outs never turn it off", () => {
    const none = { publicSuffixWildcard: false, plainHttp: false };
    expect(rules(`https://*.${FULLWIDTH_VERCEL}.app/cb`, none)).toEqual(["urlChecks.hostAsWritten"]);
    expect(rules("https:*.vercel.app", none)).toEqual(["urlChecks.hostAsWritten"]);
  });
});
