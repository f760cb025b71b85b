/**
 * `privateKeyJwt` connections of Auth0 and Okta (docs/design.md, "Federated connections"): client
 * credentials where the client proves itself with a JWT signed by the federation key (RFC 7523,
 * `private_key_jwt`) instead of a shared secret. The provider holds the public half for one client.
 */
import { z } from "zod";
import { SponsonError } from "../../shared/errors";
import type { FederationAssertions } from "../keys/federation";

export const JWT_BEARER = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

export const privateKeyJwtSchema = z.strictObject({
  /** The provider's client (Auth0 M2M application, Okta API service app) the key is registered on. */
  clientId: z.string().min(1).max(128),
  /** The ring kid registered with the provider; unset: the ring's current key. */
  kid: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]{1,128}$/, "a key id of the federation key ring")
    .optional(),
});
export type PrivateKeyJwt = z.infer<typeof privateKeyJwtSchema>;

function issuerOf(provider: string, federation: FederationAssertions | undefined): FederationAssertions {
  if (!federation)
    throw new SponsonError("INTERNAL", `${provider}: a privateKeyJwt connection without an issuer`);
  return federation;
}

/** The form fields that authenticate the client: client_id and a one-use assertion for `audience`. */
export async function clientAssertionFields(
  provider: string,
  federation: FederationAssertions | undefined,
  config: PrivateKeyJwt,
  audience: string,
): Promise<Record<string, string>> {
  const assertion = await issuerOf(provider, federation).clientAssertion({
    clientId: config.clientId,
    audience,
    ...(config.kid ? { kid: config.kid } : {}),
  });
  return { client_id: config.clientId, client_assertion_type: JWT_BEARER, client_assertion: assertion };
}

/**
 * What the token cache keys the credential on in place of a secret: the signing kid (the client id
 * is keyed already), so a token bought with one registered key is never reused for another.
 */
export async function privateKeyJwtCacheName(
  provider: string,
  federation: FederationAssertions | undefined,
  config: PrivateKeyJwt,
): Promise<string> {
  return `private_key_jwt:${await issuerOf(provider, federation).clientAssertionKid(config.kid)}`;
}

/**
 * Runs a privateKeyJwt token exchange; a refusal names the connection (docs/design.md, "Federated
 * connections"), wherever it happens: before the lease, or a new exchange under it after a 401.
 */
export async function namingConnectionOnRefusal<T>(
  federation: FederationAssertions | undefined,
  exchange: () => Promise<T>,
): Promise<T> {
  try {
    return await exchange();
  } catch (err) {
    if (!federation || !(err instanceof SponsonError) || err.code !== "PROVIDER_ERROR") throw err;
    const connection = federation.subject.replace(/^sponson:connection:/, "");
    if (err.detail?.connection === connection) throw err;
    throw new SponsonError(
      "PROVIDER_ERROR",
      `connection "${connection}": ${err.message}`,
      { ...err.detail, connection },
      { retriable: err.retriable },
    );
  }
}
