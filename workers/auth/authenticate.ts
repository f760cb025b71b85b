/**
 * Authentication middleware (docs/design.md, "Security model"): every route but the public ones needs
 * `Authorization: Bearer <token>`. Thin: the decisions live in verify-token, github-claims and
 * authorize-scope. Sets `caller` and `actor` (the caller's subject, recorded in lock history).
 */
import { createMiddleware } from "hono/factory";
import { decodeJwt } from "jose";
import { SponsonError } from "../../shared/errors";
import type { AppEnv } from "../app-env";
import { accessAssertion, assertAmbientRequestSafe } from "./access-credential";
import { type AccessKeySource, remoteAccessKeys } from "./access-keys";
import { authConfigFromEnv } from "./auth-config";
import { dashboardSessionToken, signInRedirect } from "./dashboard-session";
import { type GithubKeySource, remoteGithubKeys } from "./github-keys";
import { assertNotRevoked } from "./revoked-tokens";
import { isPublicRoute } from "./route-access";
import { serviceKeySet } from "./service-keys";
import { unauthenticated, verifyBearer } from "./verify-token";

export interface AuthOptions {
  /** The GitHub issuer's key source; default: its remote JWKS, cached per isolate. */
  githubKeys?: GithubKeySource;
  /** The fetch the default key source uses (tests serve a local JWKS through it). */
  fetch?: typeof fetch;
  /** The clock tokens are checked against. */
  now?: () => number;
  /** Where Cloudflare Access keys are fetched (the dev entry answers its local issuer's; tests theirs). */
  accessFetch?: typeof fetch;
  /** The Access key source itself; default: the team's remote JWKS through accessFetch. */
  accessKeys?: AccessKeySource;
}

const BEARER = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*)$/;

export function authenticate(options: AuthOptions = {}) {
  // Created once per createApp, i.e. once per isolate: the JWKS cache lives here.
  const githubKeys = options.githubKeys ?? remoteGithubKeys(options.fetch);
  const accessKeys = options.accessKeys ?? remoteAccessKeys(options.accessFetch);
  const now = options.now ?? Date.now;
  return createMiddleware<AppEnv>(async function authenticate(c, next) {
    if (isPublicRoute(c.req.method, c.req.path)) {
      c.set("actor", "anonymous");
      return next();
    }
    const config = authConfigFromEnv(c.env);
    const header = c.req.header("authorization");
    // Without a header, the dashboard's session cookie is the credential, on /dashboard paths only
    // (workers/auth/dashboard-session.ts); a browser without one is sent to the sign-in form.
    const session = header === undefined ? dashboardSessionToken(c) : undefined;
    // Elsewhere, the header Cloudflare Access adds (docs/security.md, "Cloudflare Access").
    const assertion = header === undefined && session === undefined ? accessAssertion(c, false) : undefined;
    if (assertion !== undefined) assertAmbientRequestSafe(c);
    if (header === undefined && session === undefined && assertion === undefined) {
      const redirect = signInRedirect(c, false);
      if (redirect) return redirect;
      throw missingToken();
    }
    const match = header === undefined ? null : BEARER.exec(header.trim());
    const token = session ?? assertion ?? match?.[1];
    if (!token) throw unauthenticated("malformed", "the Authorization header must be `Bearer <jwt>`");
    const service = await serviceKeySet(config.serviceSigningKey, config.servicePublicKeys);
    let caller: Awaited<ReturnType<typeof verifyBearer>>;
    try {
      const keys = { github: githubKeys, service, access: accessKeys };
      caller = await verifyBearer(token, config, keys, new Date(now()));
      await assertNotRevoked(c.env.RECEIPTS, caller, now());
    } catch (err) {
      // An expired or revoked session cookie: clear it and ask the browser to sign in again.
      // An Access identity no rule names gets its 403 (what to ask for), not a sign-in loop.
      const unmapped = err instanceof SponsonError && err.detail?.rule === "access.unmapped";
      const redirect = session === undefined || unmapped ? null : signInRedirect(c, true);
      if (redirect) return redirect;
      throw err;
    }
    c.set("caller", caller);
    c.set("actor", caller.subject);
    // Verified above with `exp` required: what a long-lived socket may not outlive (lock feed).
    c.set("credentialExpiresAt", (decodeJwt(token).exp ?? 0) * 1000);
    await next();
  });
}

function missingToken() {
  return unauthenticated("missing", "a bearer token is required (GitHub Actions OIDC or `npm run token`)");
}
