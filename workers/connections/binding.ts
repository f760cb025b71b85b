/**
 * Which repositories may write through a connection (docs/design.md, "Objects belong to
 * repositories"). Pure: the connection's `repositories`, the caller's repository and how many are
 * configured in, a decision out. Asked for every line of an apply or a preview before any lease and
 * any outbound request; never for a removal (destroy, rollback, a line dropped from the plan,
 * recovery), which touches only what the scope's own receipt records.
 */
import { SponsonError } from "../../shared/errors";
import type { ConnectionRepositories } from "./connection-schema";

/** Why a connection refuses a repository's writes. */
export type BindingRefusalReason =
  /** Several repositories are configured and the connection names none. */
  | "unbound"
  /** The connection names repositories, not this one. */
  | "other-repositories";

export type Binding =
  | { bound: true }
  | { bound: false; reason: BindingRefusalReason; repositories: string[] };

/**
 * Whether `repository` (owner/name) may write through a connection naming `named`, with
 * `configured` repositories in SPONSON_REPOSITORIES. Names compare case-insensitively, as GitHub's do.
 * With fewer than two configured, a connection that names none is everyone's: nothing changes for
 * a deployment serving one repository.
 */
export function bindingOf(
  named: ConnectionRepositories | undefined,
  repository: string,
  configured: number,
): Binding {
  if (named === "*") return { bound: true };
  if (named === undefined)
    return configured < 2 ? { bound: true } : { bound: false, reason: "unbound", repositories: [] };
  const wanted = repository.toLowerCase();
  return named.some((n) => n.toLowerCase() === wanted)
    ? { bound: true }
    : { bound: false, reason: "other-repositories", repositories: [...named] };
}

/** One line a binding refuses. */
export interface UnboundLine {
  line: string;
  op: string;
  connection: string;
  reason: BindingRefusalReason;
  /** The repositories the connection names (none when unbound). */
  repositories: string[];
  message: string;
}

/** What one refusal says: the connection, the repository, and what an operator would change. */
export function bindingMessage(
  connection: string,
  repository: string,
  refusal: { reason: BindingRefusalReason; repositories: readonly string[] },
): string {
  return refusal.reason === "unbound"
    ? `connection "${connection}" names no repository, and with several configured it takes writes from none (${repository} included) until SPONSON_CONNECTIONS.${connection}.repositories names those that may write through it ("*" shares it on purpose)`
    : `connection "${connection}" is bound to ${refusal.repositories.join(", ")}; ${repository} may not write through it`;
}

/**
 * One 403 for every line refused, in plan order, so a plan is fixed in one round (as the write
 * policy's refusals, workers/policy/refused-lines.ts); the message says each connection once, with
 * its lines. The first refusal's fields stay at the top.
 */
export function connectionNotBound(repository: string, refused: readonly UnboundLine[]): SponsonError {
  const first = refused[0] as UnboundLine;
  const byConnection = new Map<string, UnboundLine[]>();
  for (const r of refused) byConnection.set(r.connection, [...(byConnection.get(r.connection) ?? []), r]);
  const said = [...byConnection.values()].map((lines) => {
    const names = lines.map((l) => `"${l.line}"`).join(", ");
    return `line${lines.length === 1 ? "" : "s"} ${names}: ${(lines[0] as UnboundLine).message}`;
  });
  return new SponsonError("CONNECTION_NOT_BOUND", said.join("; "), {
    connection: first.connection,
    repository,
    reason: first.reason,
    repositories: first.repositories,
    refused,
  });
}
