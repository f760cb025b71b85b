/**
 * `POST /v1/webhooks/vercel`, step by step (docs/webhooks.md, "Vercel"; docs/design.md, "The
 * platform door"). Cheapest refusal first and nothing read from the payload before its signature,
 * except which connection's secret checks it: size; the connection the body's project names
 * (unknown: 404, and no outbound request); the HMAC over the raw bytes; the envelope's shape; the
 * event type and target; then the one outbound request, Vercel's own account of the deployment
 * (its project, target, creation time, URLs and `gitSource`), which alone decides the repository,
 * the pull request and the scope; then deduplication and the deployment order, and the queue.
 */

import type { Env } from "../../shared/env";
import { SponsonError } from "../../shared/errors";
import { acceptDeployment } from "./accept-deployment";
import { type PlatformAnswer, parseJsonBody, shapeRefusal } from "./platform-answer";
import { auditPlatformEvent, type PlatformEventAudit } from "./platform-audit";
import { boundRepository } from "./platform-repository";
import type { VercelPlatform } from "./platform-schema";
import { signedEvent } from "./signed-event";
import {
  claimedVercelProject,
  VERCEL_REGISTERING_EVENTS,
  vercelDeploymentPayloadSchema,
  vercelEnvelopeSchema,
  vercelTargetName,
} from "./vercel-event";
import { vercelDeploymentFacts } from "./vercel-facts";
import { verifyVercelSignature } from "./vercel-signature";

export async function receiveVercelEvent(
  env: Env,
  fetcher: typeof fetch,
  request: Request,
  now: number,
): Promise<PlatformAnswer> {
  const { body, connection } = await signedEvent<VercelPlatform>(env, request, {
    platform: "vercel",
    claimed: claimedVercelProject,
    matches: (p, claimed): p is VercelPlatform => p.platform === "vercel" && p.project === claimed,
    verify: (secret, bytes, req) =>
      verifyVercelSignature(secret, bytes, req.headers.get("x-vercel-signature") ?? undefined),
  });
  const envelope = vercelEnvelopeSchema.safeParse(parseJsonBody(body));
  if (!envelope.success) throw shapeRefusal("Vercel event", envelope.error.issues);
  const eventId = `vercel:${envelope.data.id}`;
  const answer: PlatformAnswer = { platform: "vercel", event: eventId, connection: connection.name };
  if (!VERCEL_REGISTERING_EVENTS.has(envelope.data.type))
    return { ...answer, ignored: true, reason: `${envelope.data.type} registers nothing` };
  const payload = vercelDeploymentPayloadSchema.safeParse(envelope.data.payload);
  if (!payload.success) throw shapeRefusal("Vercel deployment event", payload.error.issues);
  const repository = boundRepository(env, connection);
  const audit = (
    outcome: PlatformEventAudit["outcome"],
    rule: string,
    reason: string,
    scope: string | null = null,
  ) =>
    auditPlatformEvent(env, {
      platform: "vercel",
      connection: connection.name,
      repository,
      eventId,
      type: envelope.data.type,
      deployment: payload.data.deployment.id,
      scope,
      outcome,
      rule,
      reason,
      at: now,
    });
  const ignore = async (rule: string, reason: string) => {
    await audit("ignored", rule, reason);
    return { ...answer, deployment: payload.data.deployment.id, ignored: true, reason };
  };
  // The event's own target spares a read of a production deployment; Vercel's account decides.
  const claimedTarget = vercelTargetName(payload.data.target);
  if (claimedTarget === "production") return ignore("platform.production", "a production deployment");
  const facts = await vercelDeploymentFacts(env, fetcher, connection, payload.data.deployment.id);
  if (facts.kind === "refused") {
    await audit("refused", facts.rule, facts.reason);
    throw new SponsonError("FORBIDDEN", facts.reason, { rule: facts.rule });
  }
  if (facts.target === "production") return ignore("platform.production", "a production deployment");
  if (!connection.targets.includes(facts.target))
    return ignore("platform.target", `target ${facts.target} is not one of ${connection.name}'s`);
  if (facts.repositoryId !== repository.id) {
    const reason = `the deployment's repository (${facts.repositoryId ?? "none"}) is not ${repository.name}, which ${connection.name} is bound to`;
    await audit("refused", "platform.repository", reason);
    throw new SponsonError("FORBIDDEN", reason, { rule: "platform.repository" });
  }
  const scoped = facts.scopeOf(repository.defaultBranch);
  if ("ignore" in scoped) return ignore("platform.scope", scoped.ignore);
  // Its apply could only fail: {previewUrl} would have no value. A later event of it will have one.
  if (connection.url === "branch" && facts.deployment.branchUrl === undefined)
    return ignore("platform.alias", "the deployment has no branch alias yet");
  const links = payload.data.links?.deployment;
  const deployment = { ...facts.deployment, ...(links?.startsWith("https://") ? { link: links } : {}) };
  const accepted = await acceptDeployment(env, {
    connection,
    repository,
    eventId,
    scope: scoped.scope,
    deployment,
    receivedAt: now,
  });
  const done = { ...answer, scope: scoped.scope, deployment: deployment.id, queued: accepted.queued };
  if (accepted.kind === "ignored") return { ...done, ignored: true, reason: accepted.reason };
  return accepted.kind === "duplicate" ? { ...done, duplicate: true } : { ...done, accepted: true };
}
