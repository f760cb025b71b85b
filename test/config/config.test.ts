/** The Worker's config: defaults defined once, parsed once per configuration, junk refused by name. */
import { describe, expect, it } from "vitest";
import { SponsonError } from "../../shared/errors";
import { DEFAULT_LEASE_TTL_SECONDS, DEFAULT_WAIT_TIMEOUT_SECONDS } from "../../shared/lease-defaults";
import { assertConfigValid, configFromEnv } from "../../workers/config/config";

describe("configFromEnv", () => {
  it("unset vars take the defaults", () => {
    const config = configFromEnv({});
    expect(config.leaseTtlSeconds).toBe(DEFAULT_LEASE_TTL_SECONDS);
    expect(config.waitTimeoutSeconds).toBe(DEFAULT_WAIT_TIMEOUT_SECONDS);
    expect(config.githubIssuer).toBe("https://token.actions.githubusercontent.com");
    expect(config.audience).toBeNull();
    expect(config.repositories).toEqual([]);
    expect(config.environments).toEqual(["preview"]);
    expect(config.connections).toEqual({});
    expect(config.policy).toEqual({ mode: "enforced", document: { version: 1, environments: {} } });
  });

  it("set vars are parsed: numbers from text, JSON from text or from a JSON binding", () => {
    const config = configFromEnv({
      LEASE_TTL_SECONDS: "45",
      WAIT_TIMEOUT_SECONDS: 7,
      GITHUB_OIDC_ISSUER: "https://ghe.example.com/_services/token/",
      SPONSON_ENVIRONMENTS: ["staging", "preview", "staging"],
    });
    expect(config.leaseTtlSeconds).toBe(45);
    expect(config.waitTimeoutSeconds).toBe(7);
    expect(config.githubIssuer).toBe("https://ghe.example.com/_services/token");
    expect(config.environments).toEqual(["staging", "preview"]);
  });

  it("SPONSON_ENVIRONMENTS takes an entry with capacity settings beside bare names", () => {
    const config = configFromEnv({
      SPONSON_ENVIRONMENTS: JSON.stringify(["preview", { name: "staging", staleAfterDays: 14 }]),
    });
    expect(config.environments).toEqual(["preview", "staging"]);
    expect(config.environmentSettings).toEqual({ staging: { staleAfterDays: 14 } });
    const bad = configFromEnv({
      SPONSON_ENVIRONMENTS: JSON.stringify([{ name: "preview", staleAfterDays: 0 }]),
    });
    expect(() => bad.environmentSettings).toThrow(/SPONSON_ENVIRONMENTS/);
  });

  it("SPONSON_ENVIRONMENTS takes evictStale as a boolean only", () => {
    const config = configFromEnv({
      SPONSON_ENVIRONMENTS: JSON.stringify([{ name: "preview", staleAfterDays: 7, evictStale: true }]),
    });
    expect(config.environmentSettings).toEqual({ preview: { staleAfterDays: 7, evictStale: true } });
    const bad = configFromEnv({
      SPONSON_ENVIRONMENTS: JSON.stringify([{ name: "preview", evictStale: "yes" }]),
    });
    expect(() => bad.environmentSettings).toThrow(/SPONSON_ENVIRONMENTS/);
  });

  it("is parsed once per configuration: the same text gives the same object", () => {
    const a = configFromEnv({ LEASE_TTL_SECONDS: "31", OTHER: "x" });
    const b = configFromEnv({ LEASE_TTL_SECONDS: "31", OTHER: "y" });
    expect(b).toBe(a);
    expect(configFromEnv({ LEASE_TTL_SECONDS: "32" })).not.toBe(a);
  });

  it("an invalid var throws INTERNAL naming it only where it is read", () => {
    const config = configFromEnv({ LEASE_TTL_SECONDS: "abc" });
    expect(config.environments).toEqual(["preview"]);
    let caught: unknown;
    try {
      void config.leaseTtlSeconds;
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(SponsonError);
    expect((caught as SponsonError).code).toBe("INTERNAL");
    expect((caught as SponsonError).message).toBe(
      'LEASE_TTL_SECONDS must be a positive number of seconds, got "abc"',
    );
    expect(() => assertConfigValid(config)).toThrowError("LEASE_TTL_SECONDS");
  });
});
