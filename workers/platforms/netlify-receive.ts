/**
 * `POST /v1/webhooks/netlify`, step by step (docs/webhooks.md, "Netlify"; docs/design.md, "The
 * platform door"): size; the connection the body's site names (unknown: 404); the JWS over the raw
 * bytes; the deploy object's shape, its site again (signed now), its context, its state; the scope
 * from its pull request (`review_id`) or branch; then deduplication (the same bytes are the same
 * event: Netlify signs no event id) and the deployment order, and the queue. Netlify is never
 * called: the signed body is all the door has.
 */

import type { Env } from "../../shared/env";
import { SponsonError } from "../../shared/errors";
import { SHA_PATTERN } from "../../shared/placeholders";
import { acceptDeployment } from "./accept-deployment";
import { deploymentScope } from "./deployment-scope";
import { sha256Hex } from "./hmac-hex";
import {
  claimedNetlifySite,
  NETLIFY_REGISTERING_STATES,
  netlifyDeploySchema,
  netlifyUrls,
} from "./netlify-event";
import { verifyNetlifySignature } from "./netlify-signature";
import { type PlatformAnswer, parseJsonBody, shapeRefusal, unknownTarget } from "./platform-answer";
import { auditPlatformEvent } from "./platform-audit";
import { boundRepository } from "./platform-repository";
import type { NetlifyPlatform } from "./platform-schema";
import { signedEvent } from "./signed-event";

export async function receiveNetlifyEvent(env: Env, request: Request, now: number): Promise<PlatformAnswer> {
  const { body, connection } = await signedEvent<NetlifyPlatform>(env, request, {
    platform: "netlify",
    claimed: claimedNetlifySite,
    matches: (p, claimed): p is NetlifyPlatform => p.platform === "netlify" && p.site === claimed,
    verify: (secret, bytes, req) =>
      verifyNetlifySignature(secret, bytes, req.headers.get("x-webhook-signature") ?? undefined),
  });
  const parsed = netlifyDeploySchema.safeParse(parseJsonBody(body));
  if (!parsed.success) throw shapeRefusal("Netlify deploy", parsed.error.issues);
  const deploy = parsed.data;
  const eventId = `netlify:${await sha256Hex(body)}`;
  const answer: PlatformAnswer = {
    platform: "netlify",
    event: eventId,
    connection: connection.name,
    deployment: deploy.id,
  };
  if (deploy.site_id !== connection.site) throw unknownTarget("netlify");
  if (!NETLIFY_REGISTERING_STATES.has(deploy.state))
    return { ...answer, ignored: true, reason: `a deploy in state ${deploy.state} registers nothing` };
  const repository = boundRepository(env, connection);
  const ignore = async (rule: string, reason: string) => {
    await auditPlatformEvent(env, {
      platform: "netlify",
      connection: connection.name,
      repository,
      eventId,
      type: `deploy_${deploy.state}`,
      deployment: deploy.id,
      scope: null,
      outcome: "ignored",
      rule,
      reason,
      at: now,
    });
    return { ...answer, ignored: true, reason };
  };
  if (deploy.context === "production") return ignore("platform.production", "a production deploy");
  if (!(connection.contexts as readonly string[]).includes(deploy.context))
    return ignore("platform.target", `context ${deploy.context} is not one of ${connection.name}'s`);
  // A deploy with no commit was uploaded by hand (the CLI, the API, a drag and drop), not built from Git.
  const sha = typeof deploy.commit_ref === "string" ? deploy.commit_ref.toLowerCase() : null;
  if (sha === null || !SHA_PATTERN.test(sha) || deploy.draft === true)
    return ignore("platform.manual", "a deploy not built from a commit");
  const pullRequest = deploy.context === "deploy-preview" ? (deploy.review_id ?? null) : null;
  if (deploy.context === "deploy-preview" && pullRequest === null)
    return ignore("platform.scope", "a deploy preview without its pull request");
  const branch = deploy.branch ?? null;
  const scoped = deploymentScope({ pullRequest, branch }, repository.defaultBranch);
  if ("ignore" in scoped) return ignore("platform.scope", scoped.ignore);
  const urls = netlifyUrls(deploy);
  if (urls === null) throw new SponsonError("VALIDATION", "the deploy's URL is not a netlify.app URL");
  if (connection.url === "branch" && urls.branchUrl === undefined)
    return ignore("platform.alias", "the branch is too long for a Netlify branch URL");
  const link = deploy.admin_url?.startsWith("https://")
    ? { link: `${deploy.admin_url}/deploys/${deploy.id}` }
    : {};
  const accepted = await acceptDeployment(env, {
    connection,
    repository,
    eventId,
    scope: scoped.scope,
    deployment: {
      id: deploy.id,
      createdAt: Date.parse(deploy.created_at),
      ...urls,
      pullRequest,
      branch,
      sha,
      ...link,
    },
    receivedAt: now,
  });
  const done = { ...answer, scope: scoped.scope, queued: accepted.queued };
  if (accepted.kind === "ignored") return { ...done, ignored: true, reason: accepted.reason };
  return accepted.kind === "duplicate" ? { ...done, duplicate: true } : { ...done, accepted: true };
}
