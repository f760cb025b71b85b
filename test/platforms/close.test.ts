/**
 * A platform connection's scopes are the repository's scopes (docs/design.md, "The platform door"):
 * the GitHub webhook's close of the pull request destroys what its deploys registered, through the
 * same queue and the same destroy as a CI-applied scope's.
 */
import { describe, expect, it } from "vitest";
import { emulatorTransport } from "../../dev/entry/dev-env";
import { engineDestroyRunner } from "../../workers/wiring/background";
import { auth0Client, freshAuth0Domain } from "../helpers/emulators";
import { signGithubPayload } from "../helpers/github-signature";
import { APP_CLIENT, auth0Plan, seedTenant } from "../helpers/plans";
import {
  freshDeployment,
  gitSource,
  netlifyDeploy,
  netlifyPlatform,
  platformReceiver,
  runQueued,
  seedVercelDeployment,
  vercelEvent,
  vercelPlatform,
} from "../helpers/platforms";
import { pullRequestPayload, TEST_WEBHOOK_SECRET } from "../webhooks/github-delivery";

async function closePullRequest(receiver: ReturnType<typeof platformReceiver>, pr: number) {
  const body = JSON.stringify(
    pullRequestPayload("closed", pr, new Date(Date.now() + 1000).toISOString().replace(/\.\d+Z$/, "Z")),
  );
  const headers = new Headers({
    "content-type": "application/json",
    "x-github-event": "pull_request",
    "x-github-delivery": crypto.randomUUID(),
    "x-hub-signature-256": await signGithubPayload(TEST_WEBHOOK_SECRET, body),
  });
  const res = await receiver.app.fetch(
    new Request("https://sponson.test/v1/webhooks/github", { method: "POST", headers, body }),
    receiver.env,
  );
  expect(res.status).toBe(200);
  const run = engineDestroyRunner(emulatorTransport);
  return Promise.all(receiver.destroys.splice(0).map((job) => run(receiver.env, job)));
}

describe("the pull request's close destroys what its deploys registered", () => {
  it("Vercel and Netlify, one environment each: both emptied by one close", async () => {
    const domain = freshAuth0Domain("close");
    await seedTenant(domain);
    const plan = auth0Plan(domain, [{ id: "cb", op: "auth0.callbackUrl", url: "{previewUrl}/callback" }]);
    const vercel = vercelPlatform(plan);
    const netlify = netlifyPlatform(plan);
    const receiver = platformReceiver([vercel, netlify]);
    const pr = 100_000 + Math.floor(Math.random() * 900_000);
    const deployment = freshDeployment();
    await seedVercelDeployment({ id: deployment, projectId: vercel.project, gitSource: gitSource(pr) });
    await receiver.vercel(vercelEvent({ project: vercel.project, deployment }));
    await receiver.netlify(netlifyDeploy({ site: netlify.site, pr }));
    await runQueued(receiver.env, receiver.sent.splice(0));
    const callbacks = async () => (await auth0Client(domain, APP_CLIENT))?.callbacks ?? [];
    expect(await callbacks()).toHaveLength(2);

    const destroyed = await closePullRequest(receiver, pr);
    expect(destroyed.map((d) => d.outcome)).toEqual(["destroyed", "destroyed"]);
    expect(await callbacks()).toEqual([]);
  });
});
