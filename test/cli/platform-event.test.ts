/**
 * The platform door on the local door, end to end through `wrangler dev` (docs/webhooks.md, "On the
 * local door"): `npm run platform-event` tells the emulated Vercel API of a deployment of npm
 * start's demo project and sends its signed event; the local queue applies the demo plan, and the
 * emulated Auth0 application gets the branch URL. A replay is a duplicate, a forgery 401, another
 * repository's deployment 403; the pull request's close takes the entries away. Outcomes are
 * awaited by polling the emulator against a deadline.
 */
import { join } from "node:path";
import { beforeAll, describe, inject, it } from "vitest";
import { freshPr, mintToken, ROOT, run, url } from "./helpers";

const DEADLINE_MS = 30_000;
const POLL_MS = 200;
const DEMO_HOST = "sponson-demo.us.auth0.com";

let token: string;
beforeAll(async () => {
  token = await mintToken("admin");
});

async function platformEvent(args: string[]) {
  const result = await run(
    process.execPath,
    [
      join(ROOT, "scripts", "platform-event.mjs"),
      ...args,
      "--url",
      url(),
      "--secret",
      inject("vercelSecret"),
    ],
    { SPONSON_TOKEN: token },
  ).done;
  return { ...result, body: JSON.parse(result.stdout) as Record<string, unknown> };
}

async function callbacks(): Promise<string[]> {
  const res = await fetch(`${url()}/v1/emulators/${DEMO_HOST}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const body = (await res.json()) as { state: Record<string, { callbacks: string[] }> };
  return body.state["client:preview-app"]?.callbacks ?? [];
}

async function until<T>(read: () => Promise<T>, check: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + DEADLINE_MS;
  let value = await read();
  while (!check(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, POLL_MS));
    value = await read();
  }
  return value;
}

describe("npm run platform-event against wrangler dev", () => {
  it("a Vercel preview registers its branch URL; replayed, forged and another repository's change nothing; the close removes it", async ({
    expect,
  }) => {
    const pr = freshPr().slice("pr-".length);
    const branchUrl = `https://web-git-feature-${pr}-acme.vercel.app/callback`;
    const created = await platformEvent(["vercel", "created", "--pr", pr]);
    expect(created.code).toBe(0);
    expect(created.body).toMatchObject({ accepted: true, queued: true, scope: `pr-${pr}` });
    expect(await until(callbacks, (list) => list.includes(branchUrl))).toContain(branchUrl);

    const replay = await platformEvent(["vercel", "created", "--replay"]);
    expect(replay.body).toMatchObject({ duplicate: true, queued: false });
    const forged = await platformEvent(["vercel", "created", "--pr", pr, "--forge"]);
    expect([forged.code, forged.body.code]).toEqual([1, "UNAUTHENTICATED"]);
    const other = await platformEvent(["vercel", "created", "--pr", pr, "--repository-id", "1"]);
    expect([other.code, other.body.rule]).toEqual([1, "platform.repository"]);

    const close = await run(process.execPath, [
      join(ROOT, "scripts", "webhook.mjs"),
      "closed",
      "--pr",
      pr,
      "--url",
      url(),
      "--secret",
      inject("webhookSecret"),
    ]).done;
    expect(close.code).toBe(0);
    expect(await until(callbacks, (list) => !list.includes(branchUrl))).not.toContain(branchUrl);
  });
});
