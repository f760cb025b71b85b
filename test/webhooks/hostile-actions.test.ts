/**
 * A signed delivery is GitHub's, but its fields are still data: an `action` spelling a property every
 * object inherits (`__proto__`, `constructor`) is refused 400 or ignored, never a 500, and moves no
 * scope (docs/webhooks.md, "Receiver").
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { scopeStateClient } from "../../workers/scope-state/scope-state-client";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { freshPullRequest, pullRequestPayload, webhookReceiver } from "./github-delivery";

const UPDATED_AT = "2026-03-01T10:00:00Z";

async function deliverAction(action: string) {
  const receiver = webhookReceiver();
  const pr = freshPullRequest();
  const body = JSON.stringify({ ...pullRequestPayload("closed", pr, UPDATED_AT), action });
  const response = await receiver.deliver({ body });
  const state = await scopeStateClient(env, DEFAULT_REPOSITORY.id, `pr-${pr}`).read();
  return { response, state, sent: receiver.sent };
}

describe("a signed pull_request delivery with a hostile action", () => {
  it.each(["__proto__", "toString", "hasOwnProperty"])(
    '"action": "%s" is refused 400 VALIDATION (rule webhook.action); the scope stays open, nothing enqueued',
    async (action) => {
      const { response, state, sent } = await deliverAction(action);
      expect(response.status).toBe(400);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      expect(await response.json()).toMatchObject({ code: "VALIDATION", rule: "webhook.action" });
      expect(state).toMatchObject({ status: "open", revision: 0 });
      expect(sent).toEqual([]);
    },
  );

  it.each(["constructor", "valueof"])(
    '"action": "%s" (a GitHub-shaped name no table holds) is accepted and ignored (202): it moves no scope',
    async (action) => {
      const { response, state, sent } = await deliverAction(action);
      expect(response.status).toBe(202);
      expect(await response.json()).toMatchObject({ ignored: true });
      expect(state).toMatchObject({ status: "open", revision: 0 });
      expect(sent).toEqual([]);
    },
  );

  it("control: a real close still closes the scope", async () => {
    const { response, state } = await deliverAction("closed");
    expect(response.status).toBe(200);
    expect(state).toMatchObject({ status: "closed" });
  });
});
