/**
 * Test helpers: GitHub's example pull_request payloads, re-addressed to a fresh pull request and
 * revision, signed with the test-only secret, delivered to the real app. The destroy queue is the
 * real binding wrapped in a recorder, so tests can assert exactly what was enqueued.
 */
import { env, exports } from "cloudflare:workers";
import { createDevApp } from "../../dev/entry/dev-app";
import type { Env } from "../../shared/env";
import type { QueuedDestroy } from "../../workers/queue/queued-destroy";
import closed from "../fixtures/github/pull-request-closed.json";
import labeled from "../fixtures/github/pull-request-labeled.json";
import reopened from "../fixtures/github/pull-request-reopened.json";
import { signGithubPayload } from "../helpers/github-signature";

export const TEST_WEBHOOK_SECRET = "test-only-github-webhook-secret";
export const WEBHOOK_PATH = "/v1/webhooks/github";

const EXAMPLES = { closed, reopened, labeled } as const;

/** A pull request number no other test uses (object storage outlives a single test). */
export function freshPullRequest(): number {
  return 100_000 + Math.floor(Math.random() * 900_000_000);
}

/** GitHub's example payload for `action`, as pull request `number` last updated at `updatedAt`. */
export function pullRequestPayload(
  action: keyof typeof EXAMPLES,
  number: number,
  updatedAt: string,
): Record<string, unknown> {
  const payload = structuredClone(EXAMPLES[action]) as Record<string, unknown> & {
    pull_request: Record<string, unknown>;
  };
  payload.number = number;
  payload.pull_request.number = number;
  payload.pull_request.updated_at = updatedAt;
  return payload;
}

export interface Delivery {
  body: string;
  deliveryId?: string;
  event?: string;
  /** A header value to send as is; by default the body is signed with the test secret. */
  signature?: string | null;
}

export async function signedRequest(delivery: Delivery): Promise<Request> {
  const headers = new Headers({ "content-type": "application/json" });
  headers.set("x-github-event", delivery.event ?? "pull_request");
  headers.set("x-github-delivery", delivery.deliveryId ?? crypto.randomUUID());
  const signature =
    delivery.signature === undefined
      ? await signGithubPayload(TEST_WEBHOOK_SECRET, delivery.body)
      : delivery.signature;
  if (signature !== null) headers.set("x-hub-signature-256", signature);
  return new Request(`https://sponson.test${WEBHOOK_PATH}`, { method: "POST", headers, body: delivery.body });
}

export interface RecordingQueue {
  sent: QueuedDestroy[];
  queue: Queue<QueuedDestroy>;
}

/** Forwards to the real queue binding and remembers every body sent. */
export function recordingQueue(real: Queue<QueuedDestroy> = env.DESTROY_QUEUE): RecordingQueue {
  const sent: QueuedDestroy[] = [];
  const queue: Queue<QueuedDestroy> = {
    send: (body, options) => {
      sent.push(body);
      return real.send(body, options);
    },
    sendBatch: (messages, options) => {
      sent.push(...[...messages].map((m) => m.body));
      return real.sendBatch(messages, options);
    },
    metrics: () => real.metrics(),
  } as Queue<QueuedDestroy>;
  return { sent, queue };
}

/**
 * The real environment with the destroy queue recorded, and `extra` bindings on top. Defined, never
 * assigned: assigning a property to an object whose prototype is the runtime's `env` goes through
 * `env`'s own setter and changes the bindings every other test file of the runtime reads.
 */
export function envWith(queue: Queue<QueuedDestroy>, extra: Record<string, unknown> = {}): Env {
  const own = { ...extra, DESTROY_QUEUE: queue };
  const properties = Object.fromEntries(
    Object.entries(own).map(([name, value]) => [name, { value, enumerable: true }]),
  );
  return Object.defineProperties(Object.create(env as object), properties) as Env;
}

/** One app, one recorded queue: what a test needs to deliver webhooks and see what they enqueued. */
export function webhookReceiver() {
  const app = createDevApp();
  const recorded = recordingQueue();
  const testEnv = envWith(recorded.queue);
  return {
    sent: recorded.sent,
    env: testEnv,
    deliver: async (delivery: Delivery) => app.fetch(await signedRequest(delivery), testEnv),
  };
}

/**
 * The Worker's own default export, as wrangler runs it (the real app, queue and scheduled
 * handlers). Typed here because test/env.d.ts does not declare GlobalProps.mainModule.
 */
export function workerEntry(): Fetcher {
  return (exports as unknown as { default: Fetcher }).default;
}
