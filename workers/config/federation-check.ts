/**
 * `sponson config check` and GET /v1/config/status for federated connections (docs/design.md,
 * "Federated connections"): what would make every exchange fail, reported before any request.
 */
import type { ConnectionsDocument } from "../connections/connection-schema";
import { isFederated } from "../connections/connection-schema";
import { FEDERATION_KEY_RING } from "../keys/federation";
import { ringEntries, signingSecretProblem } from "../keys/key-ring";

interface Problem {
  path: string;
  message: string;
}

const unset = (v: unknown) => v === undefined || v === null || v === "";

export function federationProblems(
  name: string,
  connection: ConnectionsDocument[string],
  vars: Record<string, unknown>,
  secretsKnown: boolean,
): Problem[] {
  if (!isFederated(connection)) return [];
  const problems: Problem[] = [];
  const why = `connection ${name} is federated`;
  const url = vars.SPONSON_PUBLIC_URL;
  if (unset(url)) {
    problems.push({
      path: "SPONSON_PUBLIC_URL",
      message: `is not set, and ${why}: the clouds find the issuer of its tokens there`,
    });
  } else {
    let protocol = "";
    try {
      protocol = new URL(String(url)).protocol;
    } catch {
      // Reported below as not https.
    }
    // Locally (EMULATORS=on) the emulated clouds reach the service itself over http.
    if (protocol !== "https:" && vars.EMULATORS !== "on")
      problems.push({
        path: "SPONSON_PUBLIC_URL",
        message: `must be an https URL, and ${why}: the clouds fetch the issuer's documents over https only`,
      });
  }
  const key = vars.FEDERATION_SIGNING_KEY;
  if (secretsKnown && unset(key))
    problems.push({
      path: "FEDERATION_SIGNING_KEY",
      message: `is not set, and ${why} (npm run -s keygen -- --federation | npx wrangler secret put FEDERATION_SIGNING_KEY)`,
    });
  if (!unset(key)) {
    const problem = signingSecretProblem(String(key), FEDERATION_KEY_RING);
    if (problem !== null) problems.push({ path: "FEDERATION_SIGNING_KEY", message: problem });
    else {
      const kidProblem = privateKeyJwtKidProblem(connection, String(key));
      if (kidProblem)
        problems.push({ path: `SPONSON_CONNECTIONS.${name}.privateKeyJwt.kid`, message: kidProblem });
    }
  }
  return problems;
}

/** A pinned kid must be a ring key that still holds its private part, or every assertion fails. */
function privateKeyJwtKidProblem(connection: ConnectionsDocument[string], key: string): string | null {
  const kid = connection.privateKeyJwt?.kid;
  if (kid === undefined) return null;
  const entry = ringEntries(key, FEDERATION_KEY_RING).find((e) => e.kid === kid);
  if (entry && entry.status !== "retired" && "d" in entry && entry.d) return null;
  return `names key "${kid}", which FEDERATION_SIGNING_KEY holds no private key for (${
    entry?.status === "retired" ? "it is retired" : "no such kid"
  }); register the current key's public half with the provider and drop kid, or sign with a key the ring holds`;
}
