/**
 * The service as an OIDC issuer (docs/design.md, "Federated connections"): its issuer is the public
 * origin SPONSON_PUBLIC_URL, its keys the FEDERATION_SIGNING_KEY ring (RS256). It mints one kind of
 * token, for one connection at a time: `sub = sponson:connection:<name>`, the audience the cloud
 * asks for, a lifetime of minutes. A minted token is a registered secret: never logged or stored.
 */
import { type JWK, SignJWT } from "jose";
import { SponsonError } from "../../shared/errors";
import type { SecretRegistry } from "../../shared/secrets";
import { type ClientAssertionRequest, clientAssertionKid, mintClientAssertion } from "./client-assertion";
import { loadKeyRing, type RingOptions, signingKey } from "./key-ring";

export const FEDERATION_KEY_RING: RingOptions = { name: "FEDERATION_SIGNING_KEY", alg: "RS256" };

/** Long enough for one exchange and its retries, short enough to be worthless once it is done. */
export const FEDERATION_TOKEN_TTL_SECONDS = 300;

export interface FederationIssuer {
  /** SPONSON_PUBLIC_URL without a trailing slash: the `iss` every cloud is told to trust. */
  issuer: string;
  /** FEDERATION_SIGNING_KEY's value. */
  signingSecret: string;
}

export const connectionSubject = (connection: string) => `sponson:connection:${connection}`;

/** The issuer as configured, or null when either setting is missing. */
export function federationIssuer(vars: Record<string, unknown>): FederationIssuer | null {
  const url = vars.SPONSON_PUBLIC_URL;
  const secret = vars.FEDERATION_SIGNING_KEY;
  if (typeof url !== "string" || url.trim() === "" || typeof secret !== "string" || secret === "")
    return null;
  return { issuer: url.trim().replace(/\/+$/, ""), signingSecret: secret };
}

/** The discovery fields Google, AWS and Entra read (OpenID Connect Discovery 1.0, section 3). */
export function discoveryDocument(issuer: string): Record<string, unknown> {
  return {
    issuer,
    jwks_uri: `${issuer}/.well-known/jwks.json`,
    response_types_supported: ["id_token"],
    subject_types_supported: ["public"],
    id_token_signing_alg_values_supported: ["RS256"],
    claims_supported: ["sub", "aud", "exp", "iat", "iss", "jti"],
  };
}

/** current, next and previous public keys: a retired key is no longer published. */
export async function publishedKeys(signingSecret: string): Promise<{ keys: JWK[] }> {
  const ring = await loadKeyRing(signingSecret, FEDERATION_KEY_RING);
  return { keys: ring.verifying.map((k) => k.publicJwk) };
}

export interface MintRequest {
  connection: string;
  audience: string;
  nowMs: number;
}

/** Signs a token for one connection; the caller hands it to that connection's cloud only. */
export async function mintFederationToken(
  issuer: FederationIssuer,
  request: MintRequest,
  secrets: SecretRegistry,
): Promise<string> {
  const signer = await signingKey(issuer.signingSecret, FEDERATION_KEY_RING);
  const now = Math.floor(request.nowMs / 1000);
  const token = await new SignJWT({})
    .setProtectedHeader({ alg: signer.alg, kid: signer.kid, typ: "JWT" })
    .setIssuer(issuer.issuer)
    .setSubject(connectionSubject(request.connection))
    .setAudience(request.audience)
    .setIssuedAt(now)
    .setNotBefore(now - 5)
    .setExpirationTime(now + FEDERATION_TOKEN_TTL_SECONDS)
    .setJti(crypto.randomUUID())
    .sign(signer.key);
  secrets.register(token);
  return token;
}

/** What an adapter of a federated connection is given: assertions for its own subject only. */
export interface FederationAssertions {
  /** `sponson:connection:<name>`: part of the token cache key. */
  subject: string;
  issuer: string;
  assertion(audience: string): Promise<string>;
  /** A `private_key_jwt` client assertion (./client-assertion.ts): iss = sub = the client id. */
  clientAssertion(request: Omit<ClientAssertionRequest, "nowMs">): Promise<string>;
  /** The kid `clientAssertion` signs with for `kid`: names the key in the token cache key. */
  clientAssertionKid(kid: string | undefined): Promise<string>;
}

export function federationAssertions(
  issuer: FederationIssuer | null,
  connection: string,
  deps: { secrets: SecretRegistry; nowMs: () => number },
): FederationAssertions {
  const configured = (): FederationIssuer => {
    if (issuer === null) {
      throw new SponsonError(
        "INTERNAL",
        `connection "${connection}" is federated, but SPONSON_PUBLIC_URL or FEDERATION_SIGNING_KEY is not set`,
      );
    }
    return issuer;
  };
  return {
    subject: connectionSubject(connection),
    issuer: issuer?.issuer ?? "",
    assertion(audience) {
      return mintFederationToken(configured(), { connection, audience, nowMs: deps.nowMs() }, deps.secrets);
    },
    clientAssertion(request) {
      const { signingSecret } = configured();
      return mintClientAssertion(
        signingSecret,
        FEDERATION_KEY_RING,
        { ...request, nowMs: deps.nowMs() },
        deps.secrets,
      );
    },
    clientAssertionKid(kid) {
      return clientAssertionKid(configured().signingSecret, FEDERATION_KEY_RING, kid);
    },
  };
}
