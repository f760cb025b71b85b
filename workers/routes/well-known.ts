/**
 * The service's OIDC issuer documents (docs/design.md, "Federated connections"), public because the
 * clouds fetch them without credentials: discovery, then the JWKS it names. Public keys only.
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { SponsonError } from "../../shared/errors";
import type { AppEnv } from "../app-env";
import { problemResponses, publicSecurity } from "../http/openapi-problems";
import { discoveryDocument, federationIssuer, publishedKeys } from "../keys/federation";

function configuredIssuer(env: unknown) {
  const issuer = federationIssuer(env as Record<string, unknown>);
  if (issuer === null)
    throw new SponsonError(
      "NOT_FOUND",
      "this service is not an OIDC issuer: set SPONSON_PUBLIC_URL and FEDERATION_SIGNING_KEY (docs/deploy.md)",
    );
  return issuer;
}

// Clouds cache both documents; a rotation publishes its next key first (docs/deploy.md).
const CACHE = "public, max-age=300";
const jsonDocument = z.record(z.string(), z.unknown());

const discoveryRoute = createRoute({
  method: "get",
  path: "/.well-known/openid-configuration",
  operationId: "openidConfiguration",
  tags: ["issuer"],
  summary: "The service's OIDC discovery document, for federated connections (public)",
  security: publicSecurity,
  responses: {
    200: { description: "Discovery document", content: { "application/json": { schema: jsonDocument } } },
    ...problemResponses("NOT_FOUND"),
  },
});

const jwksRoute = createRoute({
  method: "get",
  path: "/.well-known/jwks.json",
  operationId: "issuerKeys",
  tags: ["issuer"],
  summary: "The federation key's public keys: current, next and previous (public)",
  security: publicSecurity,
  responses: {
    200: { description: "JWKS", content: { "application/json": { schema: jsonDocument } } },
    ...problemResponses("NOT_FOUND"),
  },
});

export const wellKnownRoutes = new OpenAPIHono<AppEnv>()
  .openapi(discoveryRoute, (c) => {
    const { issuer } = configuredIssuer(c.env);
    c.header("cache-control", CACHE);
    return c.json(discoveryDocument(issuer), 200);
  })
  .openapi(jwksRoute, async (c) => {
    const { signingSecret } = configuredIssuer(c.env);
    c.header("cache-control", CACHE);
    return c.json((await publishedKeys(signingSecret)) as Record<string, unknown>, 200);
  });
