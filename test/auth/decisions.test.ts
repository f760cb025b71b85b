/** The pure decisions behind the middleware: ref → scopes, caller → may act, key → registered secret. */
import { describe, expect, it } from "vitest";
import { SecretRegistry } from "../../shared/secrets";
import { authorizeScope } from "../../workers/auth/authorize-scope";
import type { GithubCaller, ServiceCaller } from "../../workers/auth/caller";
import { scopesForRef } from "../../workers/auth/github-claims";
import { registerAuthSecrets } from "../../workers/auth/service-keys";
import { newServiceSigningKey } from "../helpers/tokens";

describe("scopes from a GitHub ref", () => {
  it("a pull request's merge or head ref gives that pull request's scope", () => {
    expect(scopesForRef({ ref: "refs/pull/12/merge", event_name: "pull_request" }, "main")).toEqual([
      "pr-12",
    ]);
    expect(scopesForRef({ ref: "refs/pull/12/head", event_name: "pull_request_target" }, "main")).toEqual([
      "pr-12",
    ]);
  });

  it("a pull ref outside a pull-request event gives nothing", () => {
    expect(scopesForRef({ ref: "refs/pull/12/merge", event_name: "workflow_dispatch" }, "main")).toEqual([]);
  });

  it("a branch gives its branch scope, and main only for the default branch", () => {
    expect(scopesForRef({ ref: "refs/heads/feature/x", event_name: "push" }, "main")).toEqual([
      "branch-feature/x",
    ]);
    expect(scopesForRef({ ref: "refs/heads/trunk", event_name: "push" }, "trunk")).toEqual([
      "branch-trunk",
      "main",
    ]);
    expect(scopesForRef({ ref: "refs/heads/main", event_name: "push" }, "trunk")).toEqual(["branch-main"]);
  });

  it("tags and odd refs give nothing", () => {
    expect(scopesForRef({ ref: "refs/tags/v1", event_name: "push" }, "main")).toEqual([]);
    expect(scopesForRef({ ref: "refs/pull/0/merge", event_name: "pull_request" }, "main")).toEqual([]);
    expect(scopesForRef({ ref: "refs/pull/12/merge/extra", event_name: "pull_request" }, "main")).toEqual([]);
  });
});

const job: GithubCaller = {
  kind: "github",
  subject: "repo:acme/web:pull_request",
  role: "ci",
  repository: "acme/web",
  repositoryId: "4242",
  ref: "refs/pull/12/merge",
  eventName: "pull_request",
  scopes: ["pr-12"],
  environments: null,
  refKind: "pull-request",
  refEnvironments: { allowed: ["preview"], setting: "SPONSON_ENVIRONMENTS" },
  deploymentEnvironment: null,
  deploymentEnvironments: {},
};
const viewer: ServiceCaller = { kind: "service", subject: "dash", role: "viewer", scopes: [] };

describe("authorizeScope", () => {
  it("lets the job act on its own scope and read any", () => {
    expect(() => authorizeScope(job, "preview", "pr-12", "apply")).not.toThrow();
    expect(() => authorizeScope(job, "preview", "pr-13", "read")).not.toThrow();
  });

  it("refuses another scope with FORBIDDEN naming the rule", () => {
    expect(() => authorizeScope(job, "preview", "pr-13", "destroy")).toThrowError(
      expect.objectContaining({ code: "FORBIDDEN", detail: expect.objectContaining({ rule: "github.ref" }) }),
    );
  });

  it("refuses a viewer anything but reading", () => {
    expect(() => authorizeScope(viewer, "preview", "pr-1", "read")).not.toThrow();
    expect(() => authorizeScope(viewer, "preview", "pr-1", "preview")).toThrowError(/viewer may only read/);
  });

  it("refuses malformed scopes and the reserved _locks environment as VALIDATION", () => {
    expect(() => authorizeScope(job, "preview", "deadbeef", "apply")).toThrowError(
      expect.objectContaining({ code: "VALIDATION" }),
    );
    expect(() => authorizeScope(job, "_locks", "pr-12", "apply")).toThrowError(
      expect.objectContaining({ code: "VALIDATION" }),
    );
  });
});

describe("signing keys are registered secrets", () => {
  it("registers the key JSON and its private scalar, so either is redacted", async () => {
    const key = await newServiceSigningKey();
    const d = (JSON.parse(key) as { d: string }).d;
    const secrets = new SecretRegistry();
    registerAuthSecrets(secrets, { SERVICE_SIGNING_KEY: key });
    expect(secrets.redact(`leaked ${d}`)).toBe("leaked [redacted]");
    expect(secrets.containsSecret(key)).toBe(true);
  });
});
