/**
 * `sponson config check` and GET /v1/config/status for federated connections (docs/design.md,
 * "Federated connections"): what would make every exchange fail, reported before any request.
 */
import type { ConnectionsDocument } from "../connections/connection-schema";
import { isFederated } from "../connections/connection-schema";
import { FEDERATION_KEY_RING } from "../keys/federation";
import { signingSecretProblem } from "../keys/key-ring";

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
  }
  return problems;
}
