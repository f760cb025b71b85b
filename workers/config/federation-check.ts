/**
 * `sponson config check` and GET /v1/config/status for federated connections (docs/design.md,
 * "Federated connections"): what would make every exchange fail, reported before any request. The
 * issuer and its key are the service's, shared by every federated connection: said once, naming
 * them all, never once per connection.
 */
import type { ConnectionsDocument } from "../connections/connection-schema";
import { FEDERATION_KEY_RING } from "../keys/federation";
import { ringEntries, signingSecretProblem } from "../keys/key-ring";
import type { ConfigProblem } from "./config-report";

const unset = (v: unknown) => v === undefined || v === null || v === "";

/** "connection a is federated", "connections a and b are federated". */
function whyFederated(names: readonly string[]): string {
  if (names.length === 1) return `connection ${names[0]} is federated`;
  return `connections ${names.slice(0, -1).join(", ")} and ${names.at(-1)} are federated`;
}

/**
 * The issuer (SPONSON_PUBLIC_URL) and its key (FEDERATION_SIGNING_KEY), once for all the federated
 * connections named. `keyByNameOnly`: the key is known to be set, not its value (`wrangler secret
 * list`, or an env file's placeholder), so its content is not judged.
 */
export function issuerProblems(
  federated: readonly string[],
  vars: Readonly<Record<string, unknown>>,
  { secretsKnown, keyByNameOnly }: { secretsKnown: boolean; keyByNameOnly: boolean },
): ConfigProblem[] {
  if (federated.length === 0) return [];
  const problems: ConfigProblem[] = [];
  const why = whyFederated(federated);
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
  if (!unset(key) && !keyByNameOnly) {
    const problem = signingSecretProblem(String(key), FEDERATION_KEY_RING);
    if (problem !== null) problems.push({ path: "FEDERATION_SIGNING_KEY", message: problem });
  }
  return problems;
}

/** A pinned kid must be a ring key that still holds its private part, or every assertion fails. */
export function privateKeyJwtKidProblems(
  name: string,
  connection: ConnectionsDocument[string],
  key: unknown,
): ConfigProblem[] {
  const kid = connection.privateKeyJwt?.kid;
  // Without a readable key there is nothing to compare with (its own problem says why).
  if (kid === undefined || unset(key) || signingSecretProblem(String(key), FEDERATION_KEY_RING) !== null)
    return [];
  const entry = ringEntries(String(key), FEDERATION_KEY_RING).find((e) => e.kid === kid);
  if (entry && entry.status !== "retired" && "d" in entry && entry.d) return [];
  return [
    {
      path: `SPONSON_CONNECTIONS.${name}.privateKeyJwt.kid`,
      message: `names key "${kid}", which FEDERATION_SIGNING_KEY holds no private key for (${
        entry?.status === "retired" ? "it is retired" : "no such kid"
      }); register the current key's public half with the provider and drop kid, or sign with a key the ring holds`,
    },
  ];
}
