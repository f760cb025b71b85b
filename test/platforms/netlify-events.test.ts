/**
 * A Netlify site's deploy previews register their URLs through the door (docs/webhooks.md,
 * "Netlify"; docs/design.md, "The platform door"): the JWS over the raw body with the hook's secret,
 * then the signed deploy object — its site, its context (`deploy-preview`, with `review_id` the pull
 * request), its commit. Checked in the emulated tenant; a forged, a replayed, an out-of-order and a
 * production deploy change nothing; an unknown site is 404 before anything is read.
 */
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { auth0Client, freshAuth0Domain } from "../helpers/emulators";
import { APP_CLIENT, auth0Plan, seedTenant } from "../helpers/plans";
import {
  NETLIFY_HOOK_SECRET,
  netlifyDeploy,
  netlifyPlatform,
  platformReceiver,
  runQueued,
  signNetlify,
} from "../helpers/platforms";

async function fixture(url: "branch" | "deployment" = "branch") {
  const domain = freshAuth0Domain("netlify");
  await seedTenant(domain);
  const plan = auth0Plan(domain, [{ id: "cb", op: "auth0.callbackUrl", url: "{previewUrl}/callback" }]);
  const platform = netlifyPlatform(plan, { url, environment: "preview" });
  const receiver = platformReceiver([platform]);
  const pr = 100_000 + Math.floor(Math.random() * 900_000);
  const callbacks = async () => (await auth0Client(domain, APP_CLIENT))?.callbacks ?? [];
  return { platform, receiver, pr, callbacks };
}

describe("Netlify refuses, and does nothing", () => {
  it("an unknown site: 404, nothing queued", async () => {
    const { receiver } = await fixture();
    const res = await receiver.netlify(netlifyDeploy({ site: crypto.randomUUID(), pr: 5 }));
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: "NOT_FOUND", rule: "platform.unknown" });
    expect(receiver.sent).toEqual([]);
  });

  it("forged: another secret, a hash of another body, another issuer, alg none, no header: 401", async () => {
    const { platform, receiver, pr } = await fixture();
    const body = netlifyDeploy({ site: platform.site, pr });
    const key = new TextEncoder().encode(NETLIFY_HOOK_SECRET);
    const other = await signNetlify(NETLIFY_HOOK_SECRET, netlifyDeploy({ site: platform.site, pr: pr + 1 }));
    const notNetlify = await new SignJWT({ sha256: "0".repeat(64) })
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer("someone")
      .sign(key);
    const none = `${btoa(JSON.stringify({ alg: "none" })).replace(/=+$/, "")}.${btoa(JSON.stringify({ iss: "netlify" })).replace(/=+$/, "")}.`;
    for (const signature of [await signNetlify("wrong-secret-0123", body), other, notNetlify, none, null]) {
      const res = await receiver.netlify(body, signature);
      expect(res.status).toBe(401);
    }
    expect(receiver.sent).toEqual([]);
  });

  it("a production deploy, a branch deploy the connection does not take, a deploy not built from Git: ignored", async () => {
    const { platform, receiver, pr } = await fixture();
    const production = await receiver.netlify(
      netlifyDeploy({ site: platform.site, context: "production", pr: null, branch: "main" }),
    );
    expect(await production.json()).toMatchObject({ ignored: true, reason: "a production deploy" });
    const branch = await receiver.netlify(
      netlifyDeploy({ site: platform.site, context: "branch-deploy", pr: null }),
    );
    expect(await branch.json()).toMatchObject({
      ignored: true,
      reason: expect.stringMatching(/branch-deploy/),
    });
    const manual = await receiver.netlify(netlifyDeploy({ site: platform.site, pr, commit: null }));
    expect(await manual.json()).toMatchObject({ ignored: true, reason: "a deploy not built from a commit" });
    expect(receiver.sent).toEqual([]);
  });
});

describe("a signed Netlify deploy registers its URLs", () => {
  it("a deploy preview of pull request n: pr-<n>, the stable deploy-preview URL in the tenant", async () => {
    const { platform, receiver, pr, callbacks } = await fixture();
    const res = await receiver.netlify(netlifyDeploy({ site: platform.site, pr, name: "sponson-site" }));
    expect(res.status).toBe(202);
    expect(await res.json()).toMatchObject({ accepted: true, scope: `pr-${pr}` });
    const [report] = await runQueued(receiver.env, receiver.sent.splice(0));
    expect(report).toMatchObject({ outcome: "applied" });
    expect(await callbacks()).toEqual([`https://deploy-preview-${pr}--sponson-site.netlify.app/callback`]);
  });

  it("the same bytes again are the same event: a duplicate, nothing queued", async () => {
    const { platform, receiver, pr } = await fixture();
    const body = netlifyDeploy({ site: platform.site, pr });
    await receiver.netlify(body);
    receiver.sent.length = 0;
    const replay = await receiver.netlify(body);
    expect(await replay.json()).toMatchObject({ duplicate: true, queued: false });
    expect(receiver.sent).toEqual([]);
  });

  it("an older deploy's notification after a newer one's: ignored; each deploy's own URL replaces the last", async () => {
    const { platform, receiver, pr, callbacks } = await fixture("deployment");
    const older = netlifyDeploy({
      site: platform.site,
      pr,
      id: "a".repeat(24),
      createdAt: "2027-01-01T10:00:00Z",
    });
    const newer = netlifyDeploy({
      site: platform.site,
      pr,
      id: "b".repeat(24),
      createdAt: "2027-01-01T10:05:00Z",
    });
    await receiver.netlify(newer);
    expect(await (await receiver.netlify(older)).json()).toMatchObject({ ignored: true });
    await runQueued(receiver.env, receiver.sent.splice(0));
    expect(await callbacks()).toEqual([`https://${"b".repeat(24)}--sponson-test.netlify.app/callback`]);
  });
});
