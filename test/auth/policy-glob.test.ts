/** The glob semantics of the server-side policy (workers/policy/glob.ts), stated as cases. */
import { describe, expect, it } from "vitest";
import { matchIdentity, matchItem, matchScopePattern, patternProblem } from "../../workers/policy/glob";

describe("item patterns", () => {
  const preview = "https://*.preview.example.com/*";

  it("`*` in the host matches exactly one label", () => {
    expect(matchItem(preview, "https://pr-1.preview.example.com/callback")).toBe(true);
    expect(matchItem(preview, "https://a.b.preview.example.com/callback")).toBe(false);
    expect(matchItem(preview, "https://.preview.example.com/callback")).toBe(false);
  });

  it("the host must end where the pattern ends: no suffix, port or user-info smuggling", () => {
    expect(matchItem(preview, "https://pr-1.preview.example.com.evil.com/x")).toBe(false);
    expect(matchItem(preview, "https://pr-1.preview.example.com:8443/x")).toBe(false);
    expect(matchItem(preview, "https://evil.com@pr-1.preview.example.com/x")).toBe(false);
    expect(matchItem(preview, "https://evil@pr-1.preview.example.com/x")).toBe(false);
    expect(matchItem(preview, "http://pr-1.preview.example.com/x")).toBe(false);
  });

  it("`*` in the path matches any run of path, across `/`, but no query or fragment", () => {
    expect(matchItem(preview, "https://pr-1.preview.example.com/")).toBe(true);
    expect(matchItem(preview, "https://pr-1.preview.example.com/auth/callback")).toBe(true);
    expect(matchItem(preview, "https://pr-1.preview.example.com/cb?next=https://evil.com")).toBe(false);
    expect(matchItem(preview, "https://pr-1.preview.example.com/cb#x")).toBe(false);
  });

  it("an origin pattern admits origins, not URLs with a path", () => {
    expect(matchItem("https://*.preview.example.com", "https://pr-1.preview.example.com")).toBe(true);
    expect(matchItem("https://*.preview.example.com", "https://pr-1.preview.example.com/x")).toBe(false);
    expect(matchItem(preview, "https://pr-1.preview.example.com")).toBe(false);
  });

  it("bare domains (Firebase authorizedDomains) match host patterns", () => {
    expect(matchItem("*.preview.example.com", "pr-1.preview.example.com")).toBe(true);
    expect(matchItem("*.preview.example.com", "preview.example.com")).toBe(false);
  });

  it("hosts compare case-insensitively, paths case-sensitively", () => {
    expect(matchItem(preview, "HTTPS://PR-1.Preview.Example.COM/cb")).toBe(true);
    expect(
      matchItem("https://*.preview.example.com/Callback", "https://pr-1.preview.example.com/callback"),
    ).toBe(false);
  });

  it("a wildcard item is never admitted by a wildcard pattern", () => {
    expect(matchItem(preview, "https://*.preview.example.com/*")).toBe(false);
  });

  it("regular-expression characters in a pattern are literal", () => {
    expect(matchItem("https://app.example.com/(a|b)+", "https://app.example.com/(a|b)+")).toBe(true);
    expect(matchItem("https://app.example.com/(a|b)+", "https://app.example.com/aa")).toBe(false);
    expect(matchItem("https://app.example.com/.", "https://app.example.com/x")).toBe(false);
  });

  it("a long adversarial item is decided quickly (no backtracking blow-up)", () => {
    const item = `https://x.preview.example.com/${"a/".repeat(900)}?`;
    expect(matchItem("https://*.preview.example.com/*a*a*a*a*a*a*b", item)).toBe(false);
  });
});

describe("identity patterns", () => {
  it("`*` matches within one `:` segment", () => {
    const p = "auth0:acme.us.auth0.com:client:*";
    expect(matchIdentity(p, "auth0:acme.us.auth0.com:client:abc123")).toBe(true);
    expect(matchIdentity(p, "auth0:acme.us.auth0.com:client:abc:extra")).toBe(false);
    expect(matchIdentity(p, "auth0:evil.us.auth0.com:client:abc123")).toBe(false);
    expect(matchIdentity(p, "auth0:acme.us.auth0.com:client:")).toBe(false);
  });

  it("identities compare case-sensitively", () => {
    expect(matchIdentity("auth0:acme.us.auth0.com:client:AbC", "auth0:acme.us.auth0.com:client:abc")).toBe(
      false,
    );
  });
});

describe("service-token scope patterns", () => {
  it("match environment and scope separately", () => {
    expect(matchScopePattern("preview/pr-1", "preview", "pr-1")).toBe(true);
    expect(matchScopePattern("preview/pr-1", "preview", "pr-10")).toBe(false);
    expect(matchScopePattern("*/pr-2", "staging", "pr-2")).toBe(true);
    expect(matchScopePattern("preview/*", "preview", "branch-feature/x")).toBe(true);
    expect(matchScopePattern("preview/*", "production", "main")).toBe(false);
    expect(matchScopePattern("*", "preview", "main")).toBe(false);
  });
});

describe("pattern problems", () => {
  it("refuses empty patterns, `**` and whitespace", () => {
    expect(patternProblem("")).not.toBeNull();
    expect(patternProblem("https://**.example.com/*")).not.toBeNull();
    expect(patternProblem("https://a.example.com/ x")).not.toBeNull();
    expect(patternProblem("https://*.example.com/*")).toBeNull();
  });
});

describe("escaped stars: `\\*` is a literal `*`", () => {
  // Supabase's redirect allow list takes its own globs: previews add `https://<host>/**`.
  const supabase = "https://*.preview.example.com/\\*\\*";

  it("admits Supabase's `/**` entries exactly, and a pattern with `\\*\\*` loads", () => {
    expect(patternProblem(supabase)).toBeNull();
    expect(matchItem(supabase, "https://pr-1.preview.example.com/**")).toBe(true);
    expect(matchItem(supabase, "https://pr-1.preview.example.com/*")).toBe(false);
    expect(matchItem(supabase, "https://pr-1.preview.example.com/ab")).toBe(false);
    expect(matchItem(supabase, "https://*.preview.example.com/**")).toBe(false);
  });

  it("an unescaped `*` still never matches a `*` of the item", () => {
    expect(matchItem("https://*.preview.example.com/*", "https://pr-1.preview.example.com/**")).toBe(false);
  });

  it("a wildcard next to an escaped star: `/*\\*` admits paths ending in `*`", () => {
    expect(patternProblem("https://*.preview.example.com/*\\*")).toBeNull();
    expect(matchItem("https://*.preview.example.com/*\\*", "https://pr-1.preview.example.com/a/*")).toBe(
      true,
    );
    expect(matchItem("https://*.preview.example.com/*\\*", "https://pr-1.preview.example.com/a/b")).toBe(
      false,
    );
  });

  it("escapes work in identity patterns too, and a `\\` escapes nothing but `*`", () => {
    expect(matchIdentity("gcs:\\*:cors", "gcs:*:cors")).toBe(true);
    expect(matchIdentity("gcs:\\*:cors", "gcs:a:cors")).toBe(false);
    expect(patternProblem("https://a.example.com/\\x")).not.toBeNull();
    expect(patternProblem("https://a.example.com/x\\")).not.toBeNull();
  });
});
