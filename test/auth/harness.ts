/**
 * Drives the real app (createApp) and a probe app that has the same security middleware in front
 * of a handler echoing the caller, with a test GitHub issuer served locally and test config vars.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Hono } from "hono";
import { createDevApp } from "../../dev/entry/dev-app";
import type { AppEnv } from "../../workers/app-env";
import { authenticate } from "../../workers/auth/authenticate";
import { routeAccess } from "../../workers/auth/route-access";
import { checkConfig } from "../../workers/config/middleware";
import { onError } from "../../workers/http/problem";
import { githubIssuer, TEST_AUDIENCE, TEST_REPOSITORY, type TestGithubIssuer } from "../helpers/tokens";

/** The service's config as an operator would set it for these tests. */
export function securityEnv(extra: Record<string, unknown> = {}): typeof env {
  return {
    ...env,
    SPONSON_AUDIENCE: TEST_AUDIENCE,
    SPONSON_REPOSITORIES: JSON.stringify([TEST_REPOSITORY]),
    ...extra,
  } as typeof env;
}

export interface Harness {
  issuer: TestGithubIssuer;
  app: { request: ReturnType<typeof createDevApp>["request"] };
  probe: Hono<AppEnv>;
}

export async function harness(): Promise<Harness> {
  const issuer = await githubIssuer();
  const auth = { fetch: issuer.fetch };
  const probe = new Hono<AppEnv>();
  probe.onError(onError);
  probe.use("*", authenticate(auth), checkConfig(), routeAccess());
  probe.all("*", (c) => c.json({ caller: c.get("caller") ?? null, actor: c.get("actor") }));
  return { issuer, app: createDevApp({ auth }), probe };
}

export interface SendOptions {
  token?: string;
  authorization?: string;
  body?: unknown;
  env?: typeof env;
}

export async function send(
  app: { request: Hono<AppEnv>["request"] },
  method: string,
  path: string,
  options: SendOptions = {},
): Promise<Response> {
  const headers: Record<string, string> = {};
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  if (options.authorization !== undefined) headers.authorization = options.authorization;
  const init: RequestInit = { method, headers };
  if (options.body !== undefined) {
    init.body = JSON.stringify(options.body);
    headers["content-type"] = "application/json";
  }
  const ctx = createExecutionContext();
  const res = await app.request(`http://sponson.test${path}`, init, options.env ?? securityEnv(), ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

export interface ProblemBody {
  status: number;
  code: string;
  detail: string;
  reason?: string;
  rule?: string;
}

export async function problem(res: Response): Promise<ProblemBody> {
  return (await res.json()) as ProblemBody;
}
