/**
 * The service-token deny list (admin): revoke a token by its `jti`, and list what was revoked. A
 * token minted on the service revokes only itself and the tokens it minted; a person any token
 * (workers/auth/token-lineage.ts).
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env";
import { wasMintedBy } from "../auth/minted-by";
import { listRevokedTokens, revokeBodySchema, revokedTokenSchema, revokeToken } from "../auth/revoked-tokens";
import { requireRole } from "../auth/route-access";
import { actsAsPerson, revokeRefusal } from "../auth/token-lineage";
import {
  AUTH_CODES,
  BODY_CODES,
  bearerSecurity,
  problemResponses,
  withOpenApi,
} from "../http/openapi-problems";
import { validationHook } from "../http/validation";

const revokedToken = withOpenApi(revokedTokenSchema, "RevokedToken");

const listRoute = createRoute({
  method: "get",
  path: "/v1/tokens/revoked",
  operationId: "listRevokedTokens",
  tags: ["tokens"],
  summary: "Revoked service tokens, newest first (admin)",
  security: bearerSecurity,
  // The route table already requires admin (workers/auth/route-access.ts); this is the second lock.
  middleware: [requireRole("admin")] as const,
  responses: {
    200: {
      description: "Every revoked token id, with who revoked it, when and why",
      content: { "application/json": { schema: z.object({ revoked: z.array(revokedToken) }) } },
    },
    ...problemResponses(...AUTH_CODES),
  },
});

const revokeRoute = createRoute({
  method: "post",
  path: "/v1/tokens/revoked",
  operationId: "revokeToken",
  tags: ["tokens"],
  summary: "Revoke a service token by its jti (admin): every later request with it is refused 401",
  description:
    "A person (Cloudflare Access, or a token signed with the service key) revokes any token; a token minted on the service only itself and the tokens it minted (403 rule `token.revoke` otherwise).",
  security: bearerSecurity,
  middleware: [requireRole("admin")] as const,
  request: {
    body: {
      content: { "application/json": { schema: withOpenApi(revokeBodySchema, "RevokeTokenBody") } },
      required: true,
    },
  },
  responses: {
    200: {
      description: "Revoked (revoking an id twice keeps, and answers, the first record)",
      content: { "application/json": { schema: revokedToken } },
    },
    ...problemResponses(...BODY_CODES, ...AUTH_CODES),
  },
});

export const revokedTokenRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(listRoute, async (c) => c.json({ revoked: await listRevokedTokens(c.env.RECEIPTS) }, 200))
  .openapi(revokeRoute, async (c) => {
    const body = c.req.valid("json");
    const caller = c.get("caller");
    // A person revokes any token: the lineage is read only for a token minted on the service.
    const minter = caller.kind === "service" && !actsAsPerson(caller) ? caller.tokenId : undefined;
    const mintedByCaller = minter !== undefined && (await wasMintedBy(c.env.RECEIPTS, minter, body.jti));
    const refused = revokeRefusal(caller, body.jti, mintedByCaller);
    if (refused !== null) throw refused;
    const record = { ...body, actor: c.get("actor"), at: Date.now() };
    return c.json(await revokeToken(c.env.RECEIPTS, record), 200);
  });
