/**
 * GitHub does not promise delivery order. The scope follows the newer event whatever order the
 * deliveries arrive in (docs/design.md, "Webhooks and the sweep": out-of-order deliveries never rewind), and
 * on a tie — updated_at has one-second resolution — closed wins.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { scopeStateClient } from "../../workers/scope-state/scope-state-client";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { freshPullRequest, pullRequestPayload, webhookReceiver } from "./github-delivery";

const EARLIER = "2026-03-01T10:00:00Z";
const LATER = "2026-03-01T10:00:01Z";

describe("out-of-order deliveries", () => {
  it("reopened (newer) then closed (older): the scope stays open and no destroy is queued", async () => {
    const receiver = webhookReceiver();
    const pr = freshPullRequest();
    await receiver.deliver({ body: JSON.stringify(pullRequestPayload("reopened", pr, LATER)) });
    const late = await receiver.deliver({ body: JSON.stringify(pullRequestPayload("closed", pr, EARLIER)) });
    expect(await late.json()).toMatchObject({ applied: false, reason: "older", status: "open" });
    expect(receiver.sent).toEqual([]);
    expect(await scopeStateClient(env, DEFAULT_REPOSITORY.id, `pr-${pr}`).read()).toMatchObject({
      status: "open",
      revision: Date.parse(LATER),
    });
  });

  it("closed (newer) then reopened (older): the scope stays closed", async () => {
    const receiver = webhookReceiver();
    const pr = freshPullRequest();
    await receiver.deliver({ body: JSON.stringify(pullRequestPayload("closed", pr, LATER)) });
    const late = await receiver.deliver({
      body: JSON.stringify(pullRequestPayload("reopened", pr, EARLIER)),
    });
    expect(await late.json()).toMatchObject({ applied: false, reason: "older", status: "closed" });
    expect(await scopeStateClient(env, DEFAULT_REPOSITORY.id, `pr-${pr}`).read()).toMatchObject({
      status: "closed",
      revision: Date.parse(LATER),
    });
  });

  it("control: the same two events in order leave the scope in the later event's state", async () => {
    const receiver = webhookReceiver();
    const pr = freshPullRequest();
    await receiver.deliver({ body: JSON.stringify(pullRequestPayload("closed", pr, EARLIER)) });
    await receiver.deliver({ body: JSON.stringify(pullRequestPayload("reopened", pr, LATER)) });
    expect((await scopeStateClient(env, DEFAULT_REPOSITORY.id, `pr-${pr}`).read()).status).toBe("open");
  });

  it("tie: closed and reopened in the same second leave the scope closed, in either order", async () => {
    for (const order of [
      ["closed", "reopened"],
      ["reopened", "closed"],
    ] as const) {
      const receiver = webhookReceiver();
      const pr = freshPullRequest();
      const answers = [];
      for (const action of order) {
        const response = await receiver.deliver({
          body: JSON.stringify(pullRequestPayload(action, pr, EARLIER)),
        });
        answers.push(await response.json());
      }
      expect(
        await scopeStateClient(env, DEFAULT_REPOSITORY.id, `pr-${pr}`).read(),
        order.join(" then "),
      ).toMatchObject({
        status: "closed",
        revision: Date.parse(EARLIER),
      });
      // Whenever the close is the one that took effect, its destroys are queued.
      expect(receiver.sent.map((m) => m.environment)).toEqual(["preview", "staging"]);
      if (order[0] === "closed")
        expect(answers[1]).toMatchObject({ applied: false, reason: "tie-closed-wins" });
    }
  });
});
