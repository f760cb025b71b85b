/** Who may move a scope through the webhook: only GitHub, proven by the signature over the raw body. */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { scopeStateClient } from "../../workers/scope-state/scope-state-client";
import { WEBHOOK_MAX_BYTES } from "../../workers/webhooks/github-webhook";
import { signGithubPayload } from "../helpers/github-signature";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import {
  freshPullRequest,
  pullRequestPayload,
  signedRequest,
  webhookReceiver,
  workerEntry,
} from "./github-delivery";

const UPDATED_AT = "2026-03-01T10:00:00Z";

async function expectProblem(response: Response, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toBe("application/problem+json");
  expect(await response.json()).toMatchObject({ status, code });
}

async function expectUntouched(pr: number) {
  expect(await scopeStateClient(env, DEFAULT_REPOSITORY.id, `pr-${pr}`).read()).toMatchObject({
    status: "open",
    revision: 0,
  });
}

describe("webhook security", () => {
  it("a close signed with the shared secret closes the scope through the Worker's own entry", async () => {
    const pr = freshPullRequest();
    const body = JSON.stringify(pullRequestPayload("closed", pr, UPDATED_AT));
    const response = await workerEntry().fetch(await signedRequest({ body }));
    expect(response.status).toBe(200);
    expect(await scopeStateClient(env, DEFAULT_REPOSITORY.id, `pr-${pr}`).read()).toMatchObject({
      status: "closed",
      revision: Date.parse(UPDATED_AT),
    });
  });

  it("a close signed with another secret is refused 401 and changes nothing", async () => {
    const pr = freshPullRequest();
    const body = JSON.stringify(pullRequestPayload("closed", pr, UPDATED_AT));
    const signature = await signGithubPayload("an-attackers-guess", body);
    await expectProblem(
      await workerEntry().fetch(await signedRequest({ body, signature })),
      401,
      "UNAUTHENTICATED",
    );
    await expectUntouched(pr);
  });

  it("a close without a signature header is refused 401 and enqueues nothing", async () => {
    const receiver = webhookReceiver();
    const pr = freshPullRequest();
    const body = JSON.stringify(pullRequestPayload("closed", pr, UPDATED_AT));
    await expectProblem(await receiver.deliver({ body, signature: null }), 401, "UNAUTHENTICATED");
    expect(receiver.sent).toEqual([]);
    await expectUntouched(pr);
  });

  it("a signature taken from one payload does not carry over to an edited payload", async () => {
    const receiver = webhookReceiver();
    const signedFor = JSON.stringify(pullRequestPayload("closed", freshPullRequest(), UPDATED_AT));
    const target = freshPullRequest();
    const edited = JSON.stringify(pullRequestPayload("closed", target, UPDATED_AT));
    const signature = await signGithubPayload("test-only-github-webhook-secret", signedFor);
    await expectProblem(await receiver.deliver({ body: edited, signature }), 401, "UNAUTHENTICATED");
    await expectUntouched(target);
  });

  it("the signature covers the exact bytes: re-serialised JSON with the same meaning is refused", async () => {
    const receiver = webhookReceiver();
    const pr = freshPullRequest();
    const payload = pullRequestPayload("closed", pr, UPDATED_AT);
    const signature = await signGithubPayload("test-only-github-webhook-secret", JSON.stringify(payload));
    const reformatted = JSON.stringify(payload, null, 2);
    await expectProblem(await receiver.deliver({ body: reformatted, signature }), 401, "UNAUTHENTICATED");
    await expectUntouched(pr);
  });

  it("a malformed signature header (sha1, wrong length) is refused 401, not 400 or 500", async () => {
    const receiver = webhookReceiver();
    const body = JSON.stringify(pullRequestPayload("closed", freshPullRequest(), UPDATED_AT));
    for (const signature of ["sha1=abc", "sha256=", "sha256=zz", `sha256=${"0".repeat(63)}`]) {
      await expectProblem(await receiver.deliver({ body, signature }), 401, "UNAUTHENTICATED");
    }
  });

  it("a correctly signed body that is not JSON is refused 400 VALIDATION", async () => {
    const receiver = webhookReceiver();
    await expectProblem(await receiver.deliver({ body: '{"action": "closed",' }), 400, "VALIDATION");
  });

  it("a correctly signed pull_request payload missing the fields the receiver needs is refused 400", async () => {
    const receiver = webhookReceiver();
    const body = JSON.stringify({ action: "closed", number: 7, pull_request: {} });
    await expectProblem(await receiver.deliver({ body }), 400, "VALIDATION");
    expect(receiver.sent).toEqual([]);
  });

  it("a delivery without X-GitHub-Delivery cannot be deduplicated and is refused 400", async () => {
    const receiver = webhookReceiver();
    const pr = freshPullRequest();
    const body = JSON.stringify(pullRequestPayload("closed", pr, UPDATED_AT));
    await expectProblem(await receiver.deliver({ body, deliveryId: "" }), 400, "VALIDATION");
    await expectUntouched(pr);
  });

  it("a body over 1 MiB is refused 413 PAYLOAD_TOO_LARGE before it is verified", async () => {
    const receiver = webhookReceiver();
    const body = JSON.stringify({ padding: "x".repeat(WEBHOOK_MAX_BYTES) });
    await expectProblem(await receiver.deliver({ body }), 413, "PAYLOAD_TOO_LARGE");
  });
});
