/**
 * The platform applies on the destroy queue (docs/design.md, "The platform door"): one runner call
 * per message, each acked or retried on its own. What will not improve with a retry — a plan the
 * apply refuses, a policy or binding refusal, a connection changed since the event, a deployment
 * superseded or a scope closed meanwhile — is acked, and a failure among them is recorded in the
 * audit trail (`apply-failed`); what can (a held lock, a provider outage) is retried with the
 * destroys' backoff, then dead-lettered like them.
 */
import type { Env } from "../../shared/env";
import {
  type QueuedPlatformApply,
  queuedPlatformApplySchema,
} from "../../shared/schemas/queued-platform-apply";
import { configFromEnv } from "../config/config";
import { auditPlatformEvent } from "../platforms/platform-audit";
import { retryDelaySeconds } from "./retry-backoff";

export type PlatformApplyResult =
  | { outcome: "applied"; runId: string; detail?: string }
  | { outcome: "skipped"; detail: string; runId?: string }
  /** Refused or failed for good: a retry would meet the same answer. */
  | { outcome: "failed"; code: string; detail: string; runId?: string };

/** Throwing asks the queue to retry (and, past max_retries, to dead-letter the message). */
export type PlatformApplyRunner = (env: Env, job: QueuedPlatformApply) => Promise<PlatformApplyResult>;

export type PlatformApplyReport =
  | ({ messageId: string; status: "done"; job: QueuedPlatformApply } & PlatformApplyResult)
  | { messageId: string; status: "retry"; job: QueuedPlatformApply; delaySeconds: number; error: string }
  | { messageId: string; status: "malformed"; error: string };

export async function consumePlatformApplies(
  messages: readonly Message<unknown>[],
  env: Env,
  run: PlatformApplyRunner,
  now: () => number = Date.now,
): Promise<PlatformApplyReport[]> {
  return Promise.all(messages.map((message) => consumeOne(message, env, run, now)));
}

async function consumeOne(
  message: Message<unknown>,
  env: Env,
  run: PlatformApplyRunner,
  now: () => number,
): Promise<PlatformApplyReport> {
  const parsed = queuedPlatformApplySchema.safeParse(message.body);
  if (!parsed.success) {
    const error = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    console.error(JSON.stringify({ event: "platform-apply-malformed", messageId: message.id, error }));
    message.ack();
    return { messageId: message.id, status: "malformed", error };
  }
  const job = parsed.data;
  try {
    const result = await run(env, job);
    message.ack();
    if (result.outcome === "failed") await recordFailure(env, job, result, now());
    const report = { messageId: message.id, status: "done" as const, job, ...result };
    console.log(
      JSON.stringify({
        event: "platform-apply",
        ...report,
        // Event received → entries written, the door's latency (docs/performance.md).
        sinceEventMs: now() - job.receivedAt,
      }),
    );
    return report;
  } catch (err) {
    const delaySeconds = retryDelaySeconds(message.attempts);
    message.retry({ delaySeconds });
    // Only the message: an error from a provider must not carry a secret into the log.
    const error = err instanceof Error ? err.message : String(err);
    console.warn(
      JSON.stringify({ event: "platform-apply-retry", messageId: message.id, job, delaySeconds, error }),
    );
    return { messageId: message.id, status: "retry", job, delaySeconds, error };
  }
}

async function recordFailure(
  env: Env,
  job: QueuedPlatformApply,
  result: Extract<PlatformApplyResult, { outcome: "failed" }>,
  at: number,
): Promise<void> {
  const configured = configFromEnv(env).repositories.find((r) => r.id === job.repositoryId);
  await auditPlatformEvent(env, {
    platform: job.platform,
    connection: job.connection,
    repository: { id: job.repositoryId, name: configured?.name ?? job.repositoryName },
    eventId: job.eventId,
    type: "apply",
    deployment: job.deployment.id,
    scope: job.scope,
    outcome: "apply-failed",
    rule: `platform.apply.${result.code}`,
    reason: result.detail.slice(0, 1000),
    at,
  });
}
