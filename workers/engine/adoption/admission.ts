/**
 * What an adoption request is checked for before anything is read or written (docs/design.md,
 * "Adopting existing entries"): the op, the connection (configured, of the op's type, allowed in the
 * environment), the patterns (each read back as one pull request, each a valid item of the op once
 * filled), and whether GitHub can be asked what it must be. No I/O: a refusal here sends nothing.
 */
import { type AdoptionPattern, parsePattern } from "../../../shared/adoption-patterns";
import { didYouMean } from "../../../shared/did-you-mean";
import { SponsonError } from "../../../shared/errors";
import type { AdoptionBody } from "../../../shared/schemas/adoption";
import type { RepositoryRef } from "../../../shared/schemas/repository";
import { ALL_URL_CHECKS, itemShapeProblems } from "../../../shared/url-shape";
import { entryOfKey, type OpSpec, type Params } from "../../adapters/op-spec";
import { bindingMessage, connectionNotBound } from "../../connections/binding";
import type { EngineDeps } from "../deps";

export interface AdoptionRequest extends AdoptionBody {
  repository: RepositoryRef;
  /** Who asks (the audit trail names them; the leases' origin too). */
  actor: string;
}

export interface AdmittedAdoption {
  req: AdoptionRequest;
  op: OpSpec;
  /** The object's identity: its parent lock. */
  parent: string;
  /** Params of one item of the list (a pattern's own example): what the list is read with. */
  listParams: Params;
  patterns: AdoptionPattern[];
  /** Each scope's wait budget: one deadline per scope adopted, for every lock it waits on. */
  waitTimeoutMs: number;
}

/** What fills a pattern's placeholder in its example item: any value it can read back. */
const EXAMPLE = { pr: "1", scope: "pr-1", branch: "main" } as const;

function exampleOf(p: AdoptionPattern): string {
  const value = p.kind === "branch" ? EXAMPLE.branch : p.scopeForm ? EXAMPLE.scope : EXAMPLE.pr;
  return `${p.prefix}${value}${p.suffix}`;
}

/** A plan line's params for `item` on the object: what a pattern, filled in, must make. */
function lineParams(op: OpSpec, objectParams: Params, item: string): Params | null {
  const parsed = op.params.safeParse({ ...objectParams, [op.itemParam]: item });
  return parsed.success ? parsed.data : null;
}

/** The params that address `key` on the list `params` names, as the op validates them; null if none. */
export function paramsOfKey(op: OpSpec, objectParams: Params, key: string): Params | null {
  const named = op.paramsOfKey ? op.paramsOfKey(key) : { [op.itemParam]: key };
  if (!named) return null;
  const parsed = op.params.safeParse({ ...objectParams, ...named });
  return parsed.success ? parsed.data : null;
}

function refuse(message: string, detail?: Record<string, unknown>): never {
  throw new SponsonError("VALIDATION", message, detail);
}

export function admitAdoption(deps: EngineDeps, req: AdoptionRequest): AdmittedAdoption {
  const op = deps.ops.get(req.op);
  if (!op)
    refuse(`unknown op "${req.op}".${didYouMean(req.op, deps.ops.names())}`, { known: deps.ops.names() });
  const connection = deps.connections.use(req.connection, req.environment, "adopt");
  if (connection.type !== op.providerType)
    refuse(
      `op ${req.op} needs a connection of type "${op.providerType}"; "${req.connection}" is ${connection.type}`,
    );
  if (Object.hasOwn(req.params, op.itemParam))
    refuse(`params name the object only: the items (${op.itemParam}) are read from its list`);
  const problems: string[] = [];
  const patterns: AdoptionPattern[] = [];
  for (const source of new Set(req.patterns)) {
    const parsed = parsePattern(source, req.environment);
    if (!parsed.ok) problems.push(`"${source}": ${parsed.problem}`);
    else if (lineParams(op, req.params, exampleOf(parsed.pattern)) === null)
      problems.push(`"${source}": filled in (${exampleOf(parsed.pattern)}) it is not an item of ${op.name}`);
    else patterns.push(parsed.pattern);
  }
  if (problems.length > 0) refuse(`patterns refused: ${problems.join("; ")}`, { patterns: problems });
  const github = req.github !== undefined;
  if (req.removeClosed && !github)
    refuse(
      "removeClosed needs a GitHub token (github.token): only GitHub says which pull requests are closed",
    );
  if (patterns.some((p) => p.kind === "branch") && !github)
    refuse("a {branch} pattern needs a GitHub token (github.token): only GitHub says whose head a branch is");
  const listParams = lineParams(op, req.params, exampleOf(patterns[0] as AdoptionPattern)) as Params;
  const parent = op.lockOn(listParams, connection.settings);
  if (parent === null)
    refuse(`${op.name}'s items are objects of their own: there is no shared list to adopt from`);
  refuseForeignConnection(deps, req, { op: op.name, parent });
  // Params and identities are written to receipts and lock records: no secret may hide in them.
  if ([parent, ...Object.values(listParams)].some((v) => deps.secrets.containsSecret(v)))
    throw new SponsonError(
      "INTERNAL",
      "adopt: a parameter or the object's identity contains a registered secret",
    );
  const waitTimeoutMs =
    req.waitTimeoutSeconds !== undefined ? req.waitTimeoutSeconds * 1000 : deps.waitTimeoutMs;
  return { req, op, parent, listParams, patterns, waitTimeoutMs };
}

/**
 * An adopted entry is one the repository's scopes then write and remove, so adopting it meets the
 * binding a plan line through the same connection would (docs/design.md, "Objects belong to
 * repositories"): refused before anything is read.
 */
function refuseForeignConnection(
  deps: EngineDeps,
  req: AdoptionRequest,
  target: { op: string; parent: string },
): void {
  const binding = deps.connections.bindingOf(req.connection, req.repository.name);
  if (!binding.bound) {
    const message = bindingMessage(req.connection, req.repository.name, binding.reason);
    throw connectionNotBound(req.repository.name, [
      {
        line: "adopt",
        op: target.op,
        connection: req.connection,
        reason: binding.reason,
        message,
      },
    ]);
  }
  if (!deps.connections.writesObject(req.connection, target.parent))
    throw new SponsonError(
      "FORBIDDEN",
      `adopt: connection "${req.connection}" may not write object "${target.parent}" (SPONSON_CONNECTIONS.${req.connection}.parents)`,
      { rule: "connection.parents", connection: req.connection, identity: target.parent },
    );
}

/**
 * Why `key` may not be adopted in the environment, as a plan line writing it would be refused: the
 * URL shape check's rule, or the write policy's (docs/design.md, "Security model"); null when both
 * admit it. An adopted entry becomes one the scope writes and removes, so it meets the same checks.
 */
export function refusedBy(deps: EngineDeps, a: AdmittedAdoption, key: string): string | null {
  const { environment } = a.req;
  if (paramsOfKey(a.op, a.req.params, key) === null) return "op.params";
  const item = entryOfKey(a.op, key);
  const shape = itemShapeProblems(item, deps.urlChecks?.(environment) ?? ALL_URL_CHECKS, {
    matchesSubdomains: a.op.matchesSubdomains,
  })[0];
  if (shape) return shape.rule;
  try {
    deps.policy?.check({ environment, op: a.op.name, identity: a.parent, item });
  } catch (err) {
    if (err instanceof SponsonError && err.code === "FORBIDDEN") return String(err.detail?.rule ?? "policy");
    throw err;
  }
  return null;
}
