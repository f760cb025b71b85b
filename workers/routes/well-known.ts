/**
 * The service's OIDC issuer documents (docs/design.md, "Federated connections"), public because the
 * clouds fetch them without credentials: discovery, then the JWKS it names. Public keys only.
 */
import { Hono } from "hono";
import { SponsonError } from "../../shared/errors";
import type { AppEnv } from "../app-env";
import { discoveryDocument, federationIssuer, publishedKeys } from "../keys/federation";

function configuredIssuer(env: Record<string, unknown>) {
  const issuer = federationIssuer(env);
  if (issuer === null)
    throw new SponsonError(
      "NOT_FOUND",
      "this service is not an OIDC issuer: set SPONSON_PUBLIC_URL and FEDERATION_SIGNING_KEY (docs/deploy.md)",
    );
  return issuer;
}

// Clouds cache both documents; a rotation publishes its next key first (docs/deploy.md).
const CACHE = "public, max-age=300";

export const wellKnownRoutes = new Hono<AppEnv>()
  .get("/.well-known/openid-configuration", (c) => {
    const { issuer } = configuredIssuer(c.env as unknown as Record<string, unknown>);
    c.header("cache-control", CACHE);
    return c.json(discoveryDocument(issuer));
  })
  .get("/.well-known/jwks.json", async (c) => {
    const { signingSecret } = configuredIssuer(c.env as unknown as Record<string, unknown>);
    c.header("cache-control", CACHE);
    return c.json(await publishedKeys(signingSecret));
  });
