/** Which repository a scope request acts on: the pure rule of workers/auth/resolve-repository.ts. */
import { describe, expect, it } from "vitest";
import type { RepositoryConfig } from "../../shared/schemas/repository";
import type { Caller, GithubCaller, ServiceCaller } from "../../workers/auth/caller";
import { resolveRepository, resolveRepositoryFilter } from "../../workers/auth/resolve-repository";
import { refusal } from "../helpers/refusal";

const A: RepositoryConfig = { name: "acme/web", id: 11, defaultBranch: "main" };
const B: RepositoryConfig = { name: "octo/api", id: 22, defaultBranch: "main" };
const BOTH = [A, B];

function github(repository: RepositoryConfig): GithubCaller {
  return {
    kind: "github",
    subject: `repo:${repository.name}:pull_request`,
    role: "ci",
    repository: repository.name,
    repositoryId: String(repository.id),
    ref: "refs/pull/5/merge",
    eventName: "pull_request",
    scopes: ["pr-5"],
    environments: null,
    refKind: "pull-request",
    refEnvironments: { allowed: ["preview"], setting: "SPONSON_ENVIRONMENTS" },
    deploymentEnvironment: null,
    deploymentEnvironments: {},
  };
}

function service(role: ServiceCaller["role"], repository?: string): ServiceCaller {
  return {
    kind: "service",
    subject: `svc-${role}`,
    role,
    scopes: ["*/*"],
    ...(repository ? { repository } : {}),
  };
}

const resolve = (caller: Caller, requested: string | undefined, repositories = BOTH) =>
  resolveRepository({ caller, requested, repositories });

describe("resolveRepository", () => {
  it("a GitHub job acts for its own repository, named or not", () => {
    expect(resolve(github(B), undefined)).toBe(B);
    expect(resolve(github(B), "octo/api")).toBe(B);
    // GitHub names are case-insensitive.
    expect(resolve(github(B), "Octo/API")).toBe(B);
  });

  it("a GitHub job naming another repository is refused 403 github.repository", () => {
    const err = refusal(() => resolve(github(B), "acme/web"));
    expect(err.code).toBe("FORBIDDEN");
    expect(err.detail).toMatchObject({ rule: "github.repository", repository: "octo/api" });
  });

  it("a ci token with a repository claim acts for that repository only", () => {
    expect(resolve(service("ci", "octo/api"), undefined)).toBe(B);
    const err = refusal(() => resolve(service("ci", "octo/api"), "acme/web"));
    expect(err.code).toBe("FORBIDDEN");
    expect(err.detail).toMatchObject({ rule: "service.repository" });
  });

  it("a ci token whose claim names an unconfigured repository is refused 403 service.repository", () => {
    const err = refusal(() => resolve(service("ci", "gone/repo"), undefined));
    expect(err.code).toBe("FORBIDDEN");
    expect(err.detail).toMatchObject({ rule: "service.repository" });
  });

  it("admin, viewer and ci tokens without the claim take the query", () => {
    expect(resolve(service("admin"), "acme/web")).toBe(A);
    expect(resolve(service("viewer"), "octo/api")).toBe(B);
    expect(resolve(service("ci"), "octo/api")).toBe(B);
    // The claim binds ci tokens only.
    expect(resolve(service("admin", "octo/api"), "acme/web")).toBe(A);
  });

  it("without a query, the only configured repository: single-repository deployments name nothing", () => {
    expect(resolve(service("admin"), undefined, [A])).toBe(A);
    expect(resolve(service("ci"), undefined, [B])).toBe(B);
  });

  it("without a query and with several configured, 400 VALIDATION says how to name one", () => {
    const err = refusal(() => resolve(service("admin"), undefined));
    expect(err.code).toBe("VALIDATION");
    expect(err.message).toBe(
      "name the repository with ?repository=owner/name (configured: acme/web, octo/api)",
    );
  });

  it("with none configured, 400 VALIDATION names SPONSON_REPOSITORIES", () => {
    const err = refusal(() => resolve(service("admin"), undefined, []));
    expect(err.code).toBe("VALIDATION");
    expect(err.message).toContain("SPONSON_REPOSITORIES");
  });

  it("a query naming a repository that is not configured is 404 NOT_FOUND, listing the configured ones", () => {
    const err = refusal(() => resolve(service("admin"), "nobody/here"));
    expect(err.code).toBe("NOT_FOUND");
    expect(err.message).toContain("configured: acme/web, octo/api");
  });

  it("a query that is not owner/name is 400 VALIDATION", () => {
    for (const bad of ["acme", "acme/web/extra", "", "a b/c"]) {
      expect(refusal(() => resolve(service("admin"), bad)).code).toBe("VALIDATION");
    }
  });
});

describe("resolveRepositoryFilter (listings)", () => {
  it("lists every repository when nothing names one and several are configured", () => {
    expect(
      resolveRepositoryFilter({ caller: service("viewer"), requested: undefined, repositories: BOTH }),
    ).toBe(null);
  });

  it("lists one repository when the query, the token or the configuration names it", () => {
    const q = (caller: Caller, requested?: string, repositories = BOTH) =>
      resolveRepositoryFilter({ caller, requested, repositories });
    expect(q(service("viewer"), "octo/api")).toBe(B);
    expect(q(github(A))).toBe(A);
    expect(q(service("ci", "octo/api"))).toBe(B);
    expect(q(service("viewer"), undefined, [A])).toBe(A);
    expect(refusal(() => q(github(A), "octo/api")).code).toBe("FORBIDDEN");
  });
});
