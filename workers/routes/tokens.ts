/**
 * Minting service tokens on the service (admin; docs/deploy.md, "Tokens"): the signing key stays a
 * Worker secret, so no laptop ever holds production's private key. Any role; an admin token (with a
 * reason) only for a person, never for a token minted here (workers/auth/token-lineage.ts), so a
 * leaked admin token cannot mint its own successor. Each token carries `mintedBy`, and is audited in
 * R2 (workers/audit/token-mints.ts) — its claims, never the token itself — with the minting token's
 * lineage record (workers/auth/minted-by.ts). The claims pass the same schema and the same per-role
 * lifetime authentication checks, so a token minted here is one the service accepts.
 */
import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { SignJWT } from "jose";
import { SponsonError } from "../../shared/errors";
import { mintedTokenSchema, tokenRequestSchema } from "../../shared/schemas/tokens";
import type { AppEnv } from "../app-env";
import { recordTokenMint } from "../audit/token-mints";
import { SERVICE_AUDIENCE, SERVICE_ISSUER } from "../auth/auth-config";
import { recordMintedBy } from "../auth/minted-by";
import { requireRole } from "../auth/route-access";
import { serviceClaimsSchema } from "../auth/service-claims";
import { SERVICE_KEY_RING } from "../auth/service-keys";
import { mintRefusal } from "../auth/token-lineage";
import { configFromEnv } from "../config/config";
import {
  AUTH_CODES,
  BODY_CODES,
  bearerSecurity,
  problemResponses,
  withOpenApi,
} from "../http/openapi-problems";
import { validationHook } from "../http/validation";
import { signingKey } from "../keys/key-ring";

export { TOKEN_AUDIT_PREFIX } from "../audit/token-mints";

const mintRoute = createRoute({
  method: "post",
  path: "/v1/tokens",
  operationId: "mintToken",
  tags: ["tokens"],
  summary: "Mint a service token (admin), signed by the service and audited",
  description:
    "An admin token needs a `reason`, and is minted only for a person (Cloudflare Access, or a token signed with the service key): a token minted here is refused 403 rule `token.admin-mint`. `ttlSeconds` is at most the role's SERVICE_TOKEN_MAX_LIFETIME_SECONDS (admin: one day, ci and viewer: 90 days by default); longer is refused 400. `repository` binds a ci or viewer token to one repository; `scopes` bind ci tokens only.",
  security: bearerSecurity,
  middleware: [requireRole("admin")] as const,
  request: {
    body: {
      content: { "application/json": { schema: withOpenApi(tokenRequestSchema, "TokenRequest") } },
      required: true,
    },
  },
  responses: {
    201: {
      description: "The token (shown once; the audit record keeps its claims, not the token)",
      content: { "application/json": { schema: withOpenApi(mintedTokenSchema, "MintedToken") } },
    },
    ...problemResponses(...BODY_CODES, ...AUTH_CODES),
  },
});

export const tokenRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook }).openapi(
  mintRoute,
  async (c) => {
    const body = c.req.valid("json");
    const caller = c.get("caller");
    const refused = mintRefusal(caller, body.role);
    if (refused !== null) throw refused;
    const config = configFromEnv(c.env);
    // The same maximum authentication enforces: never hand out a token the service would refuse.
    const max = config.serviceTokenMaxLifetime[body.role];
    if (body.ttlSeconds > max) {
      throw new SponsonError(
        "VALIDATION",
        `ttlSeconds: a ${body.role} token may live at most ${max} seconds (SERVICE_TOKEN_MAX_LIFETIME_SECONDS)`,
      );
    }
    const claims = serviceClaimsSchema.safeParse({
      sub: body.subject,
      role: body.role,
      mintedBy: c.get("actor"),
      ...(body.scopes ? { scopes: body.scopes } : {}),
      ...(body.repository ? { repository: body.repository } : {}),
    });
    if (!claims.success)
      throw new SponsonError("VALIDATION", claims.error.issues.map((i) => i.message).join("; "));
    const raw = config.serviceSigningKey;
    if (raw === null) throw new SponsonError("INTERNAL", "SERVICE_SIGNING_KEY is not set");
    // The ring's current key signs (docs/design.md, "Signing keys").
    const signer = await signingKey(raw, SERVICE_KEY_RING);
    const now = Date.now();
    const id = crypto.randomUUID();
    const expiresAt = Math.floor(now / 1000) + body.ttlSeconds;
    const { sub, ...rest } = claims.data;
    const token = await new SignJWT(rest)
      .setProtectedHeader({ alg: signer.alg, kid: signer.kid, typ: "JWT" })
      .setIssuer(SERVICE_ISSUER)
      .setAudience(SERVICE_AUDIENCE)
      .setSubject(sub)
      .setJti(id)
      .setIssuedAt(Math.floor(now / 1000))
      .setExpirationTime(expiresAt)
      .sign(signer.key);
    // Recorded before the token is handed out: a token nobody can account for is never issued.
    const minter = caller.kind === "service" ? caller.tokenId : undefined;
    if (minter !== undefined) await recordMintedBy(c.env.RECEIPTS, minter, id);
    await recordTokenMint(c.env, {
      id,
      subject: sub,
      ...rest,
      ...(body.reason === undefined ? {} : { reason: body.reason }),
      ttlSeconds: body.ttlSeconds,
      expiresAt,
      issuedAt: now,
      issuedBy: c.get("actor"),
      ...(minter === undefined ? {} : { issuedByToken: minter }),
    });
    return c.json({ token, id, subject: sub, role: body.role, expiresAt }, 201);
  },
);
