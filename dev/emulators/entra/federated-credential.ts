/**
 * A client assertion from a federated identity credential (Microsoft identity platform, "Workload
 * identity federation"): `client_assertion_type=urn:ietf:params:oauth:client-assertion-type:jwt-bearer`,
 * the token checked against the app's credentials (issuer, one subject, audience
 * `api://AzureADTokenExchange`) and the issuer's JWKS. Refusals carry Entra's AADSTS codes.
 */
import { checkAssertion } from "../oidc-assertions";
import { aadError } from "./responses";
import type { EntraClientCredential } from "./state";

const JWT_BEARER = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/** null: the assertion stands for the app; otherwise Entra's refusal. */
export async function federatedRefusal(
  form: URLSearchParams,
  client: EntraClientCredential,
  outbound: typeof fetch,
): Promise<Response | null> {
  if (form.get("client_assertion_type") !== JWT_BEARER) {
    return aadError(400, "invalid_request", 50027, "Invalid client_assertion_type.");
  }
  const token = form.get("client_assertion") ?? "";
  const credentials = client.federatedCredentials ?? [];
  const issuer = credentialIssuer(token);
  const byIssuer = credentials.filter((c) => c.issuer === issuer);
  if (byIssuer.length === 0) {
    return aadError(
      400,
      "invalid_client",
      700211,
      `No matching federated identity record found for presented assertion issuer '${issuer}'. Please note that the matching is done using a case-sensitive comparison. Check your federated identity credential Subject, Audience and Issuer against the presented assertion.`,
    );
  }
  let last: Response | null = null;
  for (const credential of byIssuer) {
    const check = await checkAssertion(token, credential, outbound, Date.now());
    if (check.ok) return null;
    last = refusalOf(check.refusal, check.presented);
  }
  return last;
}

function credentialIssuer(token: string): string {
  try {
    const payload = JSON.parse(atob((token.split(".")[1] ?? "").replace(/-/g, "+").replace(/_/g, "/")));
    return typeof payload.iss === "string" ? payload.iss : "";
  } catch {
    return "";
  }
}

function refusalOf(refusal: string, presented = ""): Response {
  switch (refusal) {
    case "subject":
      return aadError(
        400,
        "invalid_client",
        700213,
        `No matching federated identity record found for presented assertion subject '${presented}'. Check your federated identity credential Subject, Audience and Issuer against the presented assertion.`,
      );
    case "audience":
      return aadError(
        400,
        "invalid_client",
        700212,
        `No matching federated identity record found for presented assertion audience '${presented}'.`,
      );
    case "expired":
      return aadError(400, "invalid_client", 700024, "Client assertion is not within its valid time range.");
    case "discovery":
      return aadError(
        400,
        "invalid_client",
        7000272,
        "The issuer's OpenID configuration or signing keys could not be retrieved.",
      );
    case "unknown-kid":
    case "signature":
      return aadError(400, "invalid_client", 700027, "Client assertion failed signature validation.");
    default:
      return aadError(400, "invalid_client", 50027, "JWT token is invalid or malformed.");
  }
}
