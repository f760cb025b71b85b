/**
 * Private Key JWT at POST /oauth/token (Auth0, "Authenticate with Private Key JWT"): the client
 * sends `client_assertion_type=urn:ietf:params:oauth:client-assertion-type:jwt-bearer` and a JWT
 * signed by a key registered on the application, `iss` = `sub` = its client id, `aud` the tenant
 * URL with its trailing slash, a lifetime of five minutes at most and a one-use `jti`.
 */
import type { JWK } from "jose";
import { type ClientAssertionRefusal, checkClientAssertion } from "../client-assertions";
import type { EmulatorState } from "../emulator";
import { oauthError } from "./responses";
import type { M2mClient } from "./state";

const JWT_BEARER = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

const DESCRIPTIONS: Record<ClientAssertionRefusal, string> = {
  malformed: "Invalid client assertion: the JWT could not be decoded",
  "no-key": "The client does not have Private Key JWT credentials",
  "unknown-kid": "Invalid client assertion: no credential of the client matches its kid",
  signature: "Invalid client assertion signature",
  expired: "Client assertion has expired",
  lifetime: "Client assertion lifetime must not exceed 5 minutes",
  audience: "Invalid client assertion: aud must be the tenant URL, e.g. https://{yourDomain}/",
  issuer: "Invalid client assertion: iss and sub must be the client_id",
  replayed: "Client assertion jti has already been used",
};

interface Call {
  host: string;
  state: EmulatorState;
  outbound: typeof fetch;
  nowMs: number;
  headers: Record<string, string>;
}

/** null: the assertion stands for the client; otherwise Auth0's refusal. */
export async function assertionRefusal(
  form: { client_id?: string; client_assertion_type?: string; client_assertion?: string },
  m2m: M2mClient | undefined,
  call: Call,
): Promise<Response | null> {
  if (form.client_assertion_type !== JWT_BEARER || !form.client_assertion) {
    return oauthError(400, "invalid_request", "Invalid client_assertion_type", call.headers);
  }
  if (!m2m || !form.client_id) return oauthError(401, "access_denied", "Unauthorized", call.headers);
  if (!m2m.privateKeyJwt) {
    return oauthError(401, "invalid_client", DESCRIPTIONS["no-key"], call.headers);
  }
  const check = await checkClientAssertion(
    form.client_assertion,
    {
      clientId: form.client_id,
      audiences: [`https://${call.host}/`],
      registered: { keys: m2m.privateKeyJwt.keys as JWK[] | undefined, jwksUri: m2m.privateKeyJwt.jwksUri },
      maxLifetimeSeconds: 300,
    },
    call.state,
    call.outbound,
    call.nowMs,
  );
  if (check.ok) return null;
  return oauthError(401, "invalid_client", DESCRIPTIONS[check.refusal], call.headers);
}
