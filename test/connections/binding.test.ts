/**
 * The binding decision (docs/design.md, "Objects belong to repositories"), pure: a connection's
 * `repositories`, the caller's repository and how many are configured decide whether it writes.
 */
import { describe, expect, it } from "vitest";
import { bindingOf, connectionNotBound } from "../../workers/connections/binding";
import { connectionSchema } from "../../workers/connections/connection-schema";

describe("bindingOf", () => {
  it("a connection that names none: everyone's with one repository configured (or none), nobody's with several", () => {
    expect(bindingOf(undefined, "acme/web", 0)).toEqual({ bound: true });
    expect(bindingOf(undefined, "acme/web", 1)).toEqual({ bound: true });
    expect(bindingOf(undefined, "acme/web", 2)).toEqual({ bound: false, reason: "unbound" });
  });

  it('names compare as GitHub\'s do (case-insensitively); "*" is every repository', () => {
    expect(bindingOf(["Acme/Web"], "acme/web", 2)).toEqual({ bound: true });
    expect(bindingOf("*", "acme/anything", 5)).toEqual({ bound: true });
  });

  it("a connection naming other repositories refuses, even with one repository configured", () => {
    expect(bindingOf(["acme/api"], "acme/web", 1)).toEqual({ bound: false, reason: "other-repositories" });
  });
});

describe("the refusal", () => {
  it("names each connection once with its lines, and lists every line", () => {
    const line = (id: string, connection: string) => ({
      line: id,
      op: "auth0.callbackUrl",
      connection,
      reason: "unbound" as const,
      message: `connection "${connection}" names no repository`,
    });
    const err = connectionNotBound("acme/web", [line("a", "x"), line("b", "x"), line("c", "y")]);
    expect(err.code).toBe("CONNECTION_NOT_BOUND");
    expect(err.message).toBe(
      'lines "a", "b": connection "x" names no repository; line "c": connection "y" names no repository',
    );
    expect(err.detail).toMatchObject({ connection: "x", repository: "acme/web", reason: "unbound" });
    expect(err.detail?.refused).toHaveLength(3);
  });
});

describe("the schema", () => {
  const base = { type: "auth0", environments: ["preview"] };
  it("takes owner/name lists and the literal *; refuses other shapes and a name twice", () => {
    expect(connectionSchema.safeParse({ ...base, repositories: ["acme/web"] }).success).toBe(true);
    expect(connectionSchema.safeParse({ ...base, repositories: "*" }).success).toBe(true);
    for (const repositories of [[], "acme/web", ["web"], ["acme/web", "ACME/web"], ["*"]])
      expect(
        connectionSchema.safeParse({ ...base, repositories }).success,
        JSON.stringify(repositories),
      ).toBe(false);
  });

  it("parents are policy patterns: ** is refused", () => {
    expect(
      connectionSchema.safeParse({ ...base, parents: ["auth0:acme.us.auth0.com:client:*"] }).success,
    ).toBe(true);
    expect(connectionSchema.safeParse({ ...base, parents: ["auth0:**"] }).success).toBe(false);
  });
});
