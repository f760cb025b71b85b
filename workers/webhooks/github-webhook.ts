/**
 * `POST /v1/webhooks/github` (docs/design.md, "Webhooks and the sweep"). Checks run cheapest-refusal first
 * and the signature before anything looks at the payload: size, signature over the raw bytes, JSON,
 * event, shape, repository; then the scope-state object deduplicates the delivery and applies
 * the revision guard in one step, and a close enqueues one destroy per environment. No run
 * executes here, so GitHub gets its answer well within its 10 s.
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { SponsonError } from "../../shared/errors";
import type { AppEnv } from "../app-env";
import { configFromEnv } from "../config/config";
import { problemResponses, publicSecurity } from "../http/openapi-problems";
import { configuredRepositoryOf } from "../repositories/configured";
import { applyScopeEvent } from "./apply-scope-event";
import { deliverySecret } from "./delivery-secret";
import { refuseFutureRevision } from "./future-revision";
import { pullRequestEventSchema, scopeEventOf } from "./pull-request-event";
import { readRawBody } from "./raw-body";
import { verifyGithubSignature } from "./signature";

/** Pull request payloads are tens of kilobytes; GitHub's own cap is 25 MB. */
export const WEBHOOK_MAX_BYTES = 1024 * 1024;

const DELIVERY_ID = /^[A-Za-z0-9-]{1,100}$/;

const outcomeSchema = z.object({
  delivery: z.string(),
  repository: z.object({ id: z.number(), name: z.string() }).optional(),
  scope: z.string().optional(),
  duplicate: z.boolean().optional(),
  ignored: z.boolean().optional(),
  applied: z.boolean().optional(),
  reason: z.string().optional(),
  status: z.enum(["open", "closed"]).optional(),
  revision: z.number().optional(),
  destroysEnqueued: z.number().optional(),
});

const webhookRoute = createRoute({
  method: "post",
  path: "/v1/webhooks/github",
  operationId: "githubWebhook",
  tags: ["webhooks"],
  summary: "GitHub webhook receiver (pull_request closed / reopened)",
  description: "Authenticated by its X-Hub-Signature-256 over the raw body, not by a bearer token.",
  security: publicSecurity,
  responses: {
    200: {
      description: "Applied, ignored by the revision guard, or a duplicate delivery",
      content: { "application/json": { schema: outcomeSchema } },
    },
    202: {
      description: "Accepted and ignored (other event, action or repository)",
      content: { "application/json": { schema: outcomeSchema } },
    },
    // Malformed JSON or payload; missing or wrong X-Hub-Signature-256; signed with the shared
    // secret for a repository that needs its own (403); body over 1 MiB.
    ...problemResponses("VALIDATION", "UNAUTHENTICATED", "FORBIDDEN", "PAYLOAD_TOO_LARGE", "INTERNAL"),
  },
});

export const githubWebhookRoutes = new OpenAPIHono<AppEnv>().openapi(webhookRoute, async (c) => {
  const body = await readRawBody(c.req.raw, WEBHOOK_MAX_BYTES);
  const config = configFromEnv(c.env);
  const secret = deliverySecret(body, config.repositories, config.webhookSecret, c.env);
  if (secret.value === "") console.error(`${secret.name} is not set: its deliveries are refused`);
  if (!(await verifyGithubSignature(secret.value, body, c.req.header("x-hub-signature-256")))) {
    // One message for missing, malformed and wrong signatures: nothing to probe.
    throw new SponsonError("UNAUTHENTICATED", "the webhook signature is missing or does not match");
  }
  // Said only to a holder of the shared secret: a stranger's forgery got the 401 above.
  if (secret.sharedFor !== undefined) throw sharedSecretRefusal(secret.sharedFor.name);
  const delivery = c.req.header("x-github-delivery") ?? "";
  if (!DELIVERY_ID.test(delivery))
    throw new SponsonError("VALIDATION", "X-GitHub-Delivery is missing or malformed");
  const payload = parseJson(body);
  const ignore = (reason: string) => c.json({ delivery, ignored: true, reason }, 202);
  if (c.req.header("x-github-event") !== "pull_request") return ignore("event is not pull_request");
  const parsed = pullRequestEventSchema.safeParse(payload);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
    const hostileAction = issues.some((i) => i.path === "action");
    throw new SponsonError("VALIDATION", "not a pull_request payload", {
      issues,
      ...(hostileAction ? { rule: "webhook.action" } : {}),
    });
  }
  const event = parsed.data;
  // By the payload's id, and its name too: the close acts only on this repository's scopes.
  const repository = configuredRepositoryOf(
    configFromEnv(c.env).repositories,
    event.repository.id,
    event.repository.full_name,
  );
  if (repository === undefined) return ignore("repository is not configured");
  const target = scopeEventOf(event, delivery);
  if (target === null) return ignore(`action ${event.action} does not change a scope`);

  const ref = { id: repository.id, name: repository.name };
  await refuseFutureRevision(c.env, { delivery, repository: ref, scope: target.scope, event: target.event });
  const outcome = await applyScopeEvent(c.env, ref, target.scope, target.event);
  return c.json({ delivery, repository: ref, scope: target.scope, ...outcome }, 200);
});

function sharedSecretRefusal(repository: string): SponsonError {
  return new SponsonError(
    "FORBIDDEN",
    `several repositories are configured: deliveries of ${repository} must be signed with a secret of its own (SPONSON_REPOSITORIES[].webhookSecret); the shared GITHUB_WEBHOOK_SECRET signs for no repository once there are two`,
    { rule: "webhook.shared-secret" },
  );
}

function parseJson(body: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(body));
  } catch {
    throw new SponsonError("VALIDATION", "the body is not valid UTF-8 JSON");
  }
}
