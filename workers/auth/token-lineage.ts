/**
 * Who may mint an admin token and whose tokens a caller may revoke (docs/security.md, "Admin
 * tokens come from people"). Pure: the caller and what storage said in, a refusal or null out.
 *
 * A person is an admin signed in with Cloudflare Access, or the holder of the service key: a
 * service token without `mintedBy` was signed outside the service (`npm run token`, keygen's
 * first token), which only the key's holder can do. A token the service minted carries
 * `mintedBy`, and
 * - mints ci and viewer tokens, never an admin one: otherwise a leaked admin token mints the next
 *   one before it expires, forever, and only rotating the key ends it;
 * - revokes itself and the tokens it minted, nothing else: otherwise a leaked one revokes the
 *   tokens of the admins who would revoke it.
 * So a leaked minted admin token is good until its own expiry (one day by default) or a person's
 * revocation, whichever comes first.
 */
import { SponsonError } from "../../shared/errors";
import type { Caller, Role } from "./caller";

/** Whether the caller acts as a person: an Access identity, or a token signed with the key itself. */
export function actsAsPerson(caller: Caller): boolean {
  if (caller.kind === "access") return true;
  return caller.kind === "service" && caller.mintedBy === undefined;
}

export function mintRefusal(caller: Caller, role: Role): SponsonError | null {
  if (role !== "admin" || actsAsPerson(caller)) return null;
  return new SponsonError(
    "FORBIDDEN",
    "an admin token is minted by a person: an admin signed in with Cloudflare Access, or a token signed with the service key (npm run token); a token minted on the service mints ci and viewer tokens only",
    { rule: "token.admin-mint" },
  );
}

/**
 * `mintedByCaller`: storage says the caller's own token minted `jti` (workers/auth/minted-by.ts).
 * The refusal reads the same whether or not `jti` names any token: nothing to probe.
 */
export function revokeRefusal(caller: Caller, jti: string, mintedByCaller: boolean): SponsonError | null {
  if (actsAsPerson(caller)) return null;
  const own = caller.kind === "service" && caller.tokenId === jti;
  if (own || mintedByCaller) return null;
  return new SponsonError(
    "FORBIDDEN",
    "a token minted on the service revokes only itself and the tokens it minted; another token is revoked by a person (Cloudflare Access, or a token signed with the service key)",
    { rule: "token.revoke" },
  );
}
