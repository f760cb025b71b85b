/**
 * Who is calling (docs/design.md, "Security model"). A Caller is what authentication proves; what it may do
 * is decided by `authorizeScope` and the route table, never by the token alone.
 */
import { z } from "zod";
import type { Provenance } from "../../shared/schemas/provenance";
import type { RefEnvironments, RefKind } from "./ref-environments";

export const ROLES = ["viewer", "ci", "admin"] as const;
export const roleSchema = z.enum(ROLES);
export type Role = z.infer<typeof roleSchema>;

/**
 * Roles are ordered: viewer reads (ledgers, locks, dashboard); ci also acts on the scopes its
 * claims allow; admin may do anything, including force-release. So "viewer or above" is every
 * authenticated caller.
 */
const ROLE_RANK: Record<Role, number> = { viewer: 1, ci: 2, admin: 3 };

export function roleAtLeast(role: Role, minimum: Role): boolean {
  return ROLE_RANK[role] >= ROLE_RANK[minimum];
}

/** A GitHub Actions job, proven by its OIDC token; always role `ci`. */
export interface GithubCaller {
  kind: "github";
  /** The token's `sub`, e.g. `repo:acme/web:pull_request`. */
  subject: string;
  role: "ci";
  repository: string;
  repositoryId: string;
  ref: string;
  eventName: string;
  /** `job_workflow_ref` when present: which workflow file minted the token. */
  workflowRef?: string;
  /**
   * The scopes this token's ref entitles it to (docs/design.md, "Security model": derived from claims, never
   * from the request).
   */
  scopes: string[];
  /** Environments the repository is configured for; null means any. */
  environments: string[] | null;
  /** What kind of ref GitHub signed (workers/auth/ref-environments.ts). */
  refKind: RefKind;
  /** Environments this ref kind may act in (null: any), and the setting that grants them. */
  refEnvironments: RefEnvironments;
  /** The token's `environment` claim: the GitHub deployment environment the job ran in, if any. */
  deploymentEnvironment: string | null;
  /** Environments that require a GitHub deployment environment (SPONSON_REPOSITORIES[].deploymentEnvironments). */
  deploymentEnvironments: Record<string, string>;
  /** Environments that require a workflow file (SPONSON_REPOSITORIES[].jobWorkflowRef): patterns. */
  jobWorkflowRefs?: Record<string, string>;
  /** Where the job comes from, from its verified claims (docs/design.md, "Provenance"). */
  provenance?: Provenance;
}

/** A holder of a token signed by this service's own key (`npm run token`). */
export interface ServiceCaller {
  kind: "service";
  subject: string;
  role: Role;
  /** `environment/scope` patterns with `*` (ci tokens act only within these; admin ignores them). */
  scopes: string[];
  /** `owner/name`: a ci token with this claim acts for that repository only
   * (workers/auth/resolve-repository.ts). */
  repository?: string;
  /** The token's `jti`, when it has one: checked against the deny list at every request. */
  tokenId?: string;
  /**
   * Who minted it on the service, when it was (its `mintedBy` claim): such a token never mints an
   * admin token nor revokes another's (workers/auth/token-lineage.ts).
   */
  mintedBy?: string;
  /** The `kid` of the key that verified it (its header's), when named: part of its rate-limit key. */
  keyId?: string;
}

/**
 * A person signed in with Cloudflare Access (workers/auth/access-verify.ts), treated like a service
 * token of the role SPONSON_ACCESS maps them to, with its repository binding.
 */
export interface AccessCaller {
  kind: "access";
  /** `access:<email>`: the actor recorded in lock history and the audit trail. */
  subject: string;
  email: string;
  role: "viewer" | "admin";
  /** Always empty: Access identities never act on scopes as ci. */
  scopes: string[];
  /** `owner/name`: a viewer reads that repository only. */
  repository?: string;
}

export type Caller = GithubCaller | ServiceCaller | AccessCaller;
