/**
 * SPONSON_ACCESS's schema and rule order (docs/security.md, "Cloudflare Access"): only a Cloudflare
 * Access team domain (or a `.localhost` local issuer) is accepted, each rule names exactly one of
 * email, domain or group, and the first rule that names an identity decides.
 */
import { describe, expect, it } from "vitest";
import { accessConfigSchema, matchAccessRule } from "../../workers/auth/access-config";

const base = { audience: "aud", identities: [{ emailDomain: "acme.com", role: "viewer" }] };

describe("SPONSON_ACCESS", () => {
  it("accepts a team domain and the local issuer's .localhost one", () => {
    expect(
      accessConfigSchema.safeParse({ ...base, teamDomain: "https://acme.cloudflareaccess.com/" }).success,
    ).toBe(true);
    expect(
      accessConfigSchema.safeParse({ ...base, teamDomain: "https://sponson-local.access.localhost" }).success,
    ).toBe(true);
  });

  it("refuses any other issuer: http, another host, a path", () => {
    for (const teamDomain of [
      "http://acme.cloudflareaccess.com",
      "https://evil.example.com",
      "https://acme.cloudflareaccess.com.evil.com",
      "https://acme.cloudflareaccess.com/x",
    ]) {
      expect(accessConfigSchema.safeParse({ ...base, teamDomain }).success, teamDomain).toBe(false);
    }
  });

  it("refuses a rule naming two identities, an admin bound to a repository, and a ci role", () => {
    const teamDomain = "https://acme.cloudflareaccess.com";
    for (const rule of [
      { email: "a@acme.com", group: "sre", role: "admin" },
      { email: "a@acme.com", role: "admin", repository: "acme/web" },
      { email: "a@acme.com", role: "ci" },
    ]) {
      expect(accessConfigSchema.safeParse({ ...base, teamDomain, identities: [rule] }).success).toBe(false);
    }
  });

  it("the first matching rule decides; emails compare case-insensitively; unnamed is null", () => {
    const config = accessConfigSchema.parse({
      teamDomain: "https://acme.cloudflareaccess.com",
      audience: "aud",
      identities: [
        { email: "Root@Acme.com", role: "admin" },
        { group: "sre", role: "admin" },
        { emailDomain: "acme.com", role: "viewer" },
      ],
    });
    expect(matchAccessRule(config.identities, { email: "root@acme.com", groups: [] })?.role).toBe("admin");
    expect(matchAccessRule(config.identities, { email: "bo@acme.com", groups: [] })?.role).toBe("viewer");
    expect(matchAccessRule(config.identities, { email: "bo@acme.com", groups: ["sre"] })?.role).toBe("admin");
    expect(matchAccessRule(config.identities, { email: "x@acme.com.evil", groups: [] })).toBeNull();
  });
});
