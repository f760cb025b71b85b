/**
 * The shared webhook secret with several repositories (docs/webhooks.md, "Secrets"): whoever holds
 * GITHUB_WEBHOOK_SECRET could sign a close for any repository that has none of its own, so once two
 * repositories are configured such a delivery is refused 403 `webhook.shared-secret` after its
 * signature checked out, and nothing changes: the scope stays open, no destroy is queued. A
 * signature that does not check out is still the plain 401 (nothing to learn about the setup).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createDevApp } from "../../dev/entry/dev-app";
import type { RepositoryConfig } from "../../shared/schemas/repository";
import { scopeStateClient } from "../../workers/scope-state/scope-state-client";
import { signGithubPayload } from "../helpers/github-signature";
import {
  envWith,
  freshPullRequest,
  pullRequestPayload,
  recordingQueue,
  signedRequest,
  TEST_WEBHOOK_SECRET,
} from "./github-delivery";

const base = 700_000_000 + Math.floor(Math.random() * 1_000_000) * 10;
const A: RepositoryConfig = {
  name: "octo-a/site",
  id: base + 1,
  defaultBranch: "main",
  webhookSecret: "WEBHOOK_SECRET_OCTO_A",
};
const B: RepositoryConfig = { name: "octo-b/site", id: base + 2, defaultBranch: "main" };
const A_SECRET = "test-only-octo-a-webhook-secret";
const B_SECRET = "test-only-octo-b-webhook-secret";

/** GitHub's example close, re-addressed to `repository`'s pull request `pr`. */
function closeOf(repository: RepositoryConfig, pr: number): string {
  const payload = pullRequestPayload("closed", pr, "2026-03-01T10:00:00Z") as Record<string, unknown> & {
    repository: Record<string, unknown>;
  };
  payload.repository.id = repository.id;
  payload.repository.full_name = repository.name;
  return JSON.stringify(payload);
}

function receiver(repositories: RepositoryConfig[]) {
  const recorded = recordingQueue();
  const bindings = envWith(recorded.queue, {
    WEBHOOK_SECRET_OCTO_A: A_SECRET,
    WEBHOOK_SECRET_OCTO_B: B_SECRET,
    SPONSON_REPOSITORIES: JSON.stringify(repositories),
  });
  const app = createDevApp();
  return {
    sent: recorded.sent,
    deliver: async (body: string, secret: string) =>
      app.fetch(await signedRequest({ body, signature: await signGithubPayload(secret, body) }), bindings),
  };
}

async function stateOf(repository: RepositoryConfig, pr: number) {
  return scopeStateClient(env, repository.id, `pr-${pr}`).read();
}

describe("several repositories and the shared webhook secret", () => {
  it("a close of B signed with the shared secret, B having none of its own, is refused 403; nothing queued", async () => {
    const pr = freshPullRequest();
    const { deliver, sent } = receiver([A, B]);
    const res = await deliver(closeOf(B, pr), TEST_WEBHOOK_SECRET);
    expect(res.status).toBe(403);
    const problem = (await res.json()) as { code: string; rule: string; detail?: unknown };
    expect(problem).toMatchObject({ code: "FORBIDDEN", rule: "webhook.shared-secret" });
    expect(JSON.stringify(problem)).toContain("webhookSecret");
    expect(await stateOf(B, pr)).toMatchObject({ status: "open", revision: 0 });
    expect(sent).toEqual([]);
  });

  it("the same close with a wrong signature stays the plain 401: the setup is not told to a stranger", async () => {
    const pr = freshPullRequest();
    const { deliver, sent } = receiver([A, B]);
    const res = await deliver(closeOf(B, pr), "not-the-secret");
    expect(res.status).toBe(401);
    expect(((await res.json()) as { code: string }).code).toBe("UNAUTHENTICATED");
    expect(sent).toEqual([]);
  });

  it("control: B with a secret of its own, its close signed with it closes B's scope and queues its destroy", async () => {
    const pr = freshPullRequest();
    const withOwn = { ...B, webhookSecret: "WEBHOOK_SECRET_OCTO_B" };
    const { deliver, sent } = receiver([A, withOwn]);
    const res = await deliver(closeOf(withOwn, pr), B_SECRET);
    expect(res.status).toBe(200);
    expect(await stateOf(B, pr)).toMatchObject({ status: "closed" });
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.every((d) => d.repositoryId === B.id)).toBe(true);
  });

  it("control: with one repository the shared secret still signs its deliveries", async () => {
    const pr = freshPullRequest();
    const { deliver } = receiver([B]);
    const res = await deliver(closeOf(B, pr), TEST_WEBHOOK_SECRET);
    expect(res.status).toBe(200);
    expect(await stateOf(B, pr)).toMatchObject({ status: "closed" });
  });

  it("the receivers here leave the runtime's own bindings as they were (other files read them)", () => {
    const before = env.SPONSON_REPOSITORIES;
    receiver([A, B]);
    expect(env.SPONSON_REPOSITORIES).toBe(before);
    expect(JSON.parse(String(env.SPONSON_REPOSITORIES))).toHaveLength(1);
  });

  it("a delivery naming a repository that is not configured is still only ignored (202)", async () => {
    const { deliver, sent } = receiver([A, B]);
    const stranger = { name: "someone/else", id: base + 9, defaultBranch: "main" };
    const res = await deliver(closeOf(stranger, freshPullRequest()), TEST_WEBHOOK_SECRET);
    expect(res.status).toBe(202);
    expect(sent).toEqual([]);
  });
});
