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

export type Binding = { bound: true } | { bound: false; reason: BindingRefusalReason };

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
  if (named === undefined) return configured < 2 ? { bound: true } : { bound: false, reason: "unbound" };
  const wanted = repository.toLowerCase();
  return named.some((n) => n.toLowerCase() === wanted)
    ? { bound: true }
    : { bound: false, reason: "other-repositories" };
}

/** One line a binding refuses. */
export interface UnboundLine {
  line: string;
  op: string;
  connection: string;
  reason: BindingRefusalReason;
  message: string;
}

/**
 * What one refusal says: the connection, the repository, and what would change the answer. Never
 * which repositories the connection does name: a caller bound to one repository learns nothing of
 * another's (docs/security.md, "Repository isolation"); an admin reads them in the config report.
 */
export function bindingMessage(connection: string, repository: string, reason: BindingRefusalReason): string {
  const field = `SPONSON_CONNECTIONS.${connection}.repositories`;
  return reason === "unbound"
    ? `connection "${connection}" names no repository, and with several configured it takes writes from none (${repository} included) until ${field} names those that may write through it ("*" shares it on purpose)`
    : `connection "${connection}" is bound to other repositories, not ${repository}: write through one of ${repository}'s connections, or an operator adds ${repository} to ${field}`;
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
    refused,
  });
}
