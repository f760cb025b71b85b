/**
 * Authentication middleware (DESIGN §7): every route but the public ones needs
 * `Authorization: Bearer <token>`. Thin: the decisions live in verify-token, github-claims and
 * authorize-scope. Sets `caller` and `actor` (the caller's subject, recorded in lock history).
 */
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../app-env";
import { authConfigFromEnv } from "./auth-config";
import { type GithubKeySource, remoteGithubKeys } from "./github-keys";
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
}

const BEARER = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*)$/;

export function authenticate(options: AuthOptions = {}) {
  // Created once per createApp, i.e. once per isolate: the JWKS cache lives here.
  const githubKeys = options.githubKeys ?? remoteGithubKeys(options.fetch);
  const now = options.now ?? Date.now;
  return createMiddleware<AppEnv>(async function authenticate(c, next) {
    if (isPublicRoute(c.req.method, new URL(c.req.url).pathname)) {
      c.set("actor", "anonymous");
      return next();
    }
    const config = authConfigFromEnv(c.env);
    const header = c.req.header("authorization");
    if (header === undefined) throw missingToken();
    const match = BEARER.exec(header.trim());
    if (!match?.[1]) throw unauthenticated("malformed", "the Authorization header must be `Bearer <jwt>`");
    const service = await serviceKeySet(config.serviceSigningKey, config.servicePublicKeys);
    const caller = await verifyBearer(match[1], config, { github: githubKeys, service }, new Date(now()));
    c.set("caller", caller);
    c.set("actor", caller.subject);
    await next();
  });
}

function missingToken() {
  return unauthenticated("missing", "a bearer token is required (GitHub Actions OIDC or `npm run token`)");
}
