/**
 * `POST /v1/webhooks/vercel` and `POST /v1/webhooks/netlify` (docs/webhooks.md, "Platforms"):
 * public routes, authenticated by the platform's own signature over the raw body
 * (./vercel-receive.ts, ./netlify-receive.ts). No run executes here: an accepted event's apply is
 * queued, so the platform gets its answer well within its delivery timeout.
 */
import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import type { Env } from "../../shared/env";
import type { AppEnv } from "../app-env";
import { problemResponses, publicSecurity } from "../http/openapi-problems";
import { receiveNetlifyEvent } from "./netlify-receive";
import { platformAnswerSchema } from "./platform-answer";
import { receiveVercelEvent } from "./vercel-receive";

const REFUSALS = [
  "VALIDATION",
  "UNAUTHENTICATED",
  "FORBIDDEN",
  "NOT_FOUND",
  "PAYLOAD_TOO_LARGE",
  "PROVIDER_ERROR",
  "INTERNAL",
] as const;

const acknowledged = {
  202: {
    description: "Acknowledged: accepted (its apply is queued), a duplicate, or ignored with its reason",
    content: { "application/json": { schema: platformAnswerSchema } },
  },
};

const vercelRoute = createRoute({
  method: "post",
  path: "/v1/webhooks/vercel",
  operationId: "vercelWebhook",
  tags: ["webhooks"],
  summary: "Vercel deployment events of a connected project (SPONSON_PLATFORMS)",
  description:
    "Authenticated by x-vercel-signature (hex HMAC-SHA1 of the raw body), not by a bearer token. An unknown project is 404 before anything else is read; a deployment Vercel says is another repository's is 403.",
  security: publicSecurity,
  responses: { ...acknowledged, ...problemResponses(...REFUSALS) },
});

const netlifyRoute = createRoute({
  method: "post",
  path: "/v1/webhooks/netlify",
  operationId: "netlifyWebhook",
  tags: ["webhooks"],
  summary: "Netlify deploy notifications of a connected site (SPONSON_PLATFORMS)",
  description:
    "Authenticated by X-Webhook-Signature (a JWS, HS256, iss netlify, sha256 of the raw body), not by a bearer token. An unknown site is 404 before anything else is read.",
  security: publicSecurity,
  responses: { ...acknowledged, ...problemResponses(...REFUSALS.filter((c) => c !== "PROVIDER_ERROR")) },
});

/** `fetchFor`: where the door's one outbound request (Vercel's deployment) goes: the entry's transport. */
export function platformWebhookRoutes(fetchFor: (env: Env) => typeof fetch, now: () => number = Date.now) {
  return new OpenAPIHono<AppEnv>()
    .openapi(vercelRoute, async (c) =>
      c.json(await receiveVercelEvent(c.env, fetchFor(c.env), c.req.raw, now()), 202),
    )
    .openapi(netlifyRoute, async (c) => c.json(await receiveNetlifyEvent(c.env, c.req.raw, now()), 202));
}
