/**
 * The webhook path on the local door, end to end through `wrangler dev`: `npm run webhook` signs
 * a real @octokit/webhooks-examples payload, the receiver marks the scope closed, the local queue
 * runs the destroy, and the emulated Auth0 application loses exactly that pull request's entries.
 * Outcomes are awaited by polling the ledger and the emulator against a deadline.
 */
import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, inject, it } from "vitest";
import { githubTimestamp, pullRequestPayload } from "../../scripts/github-event.mjs";
import { type CliResult, EXAMPLE_PLAN, freshPr, mintToken, ROOT, run, url } from "./helpers";

const DESTROY_DEADLINE_MS = 30_000;
const POLL_MS = 200;
const DEMO_HOST = "sponson-demo.us.auth0.com";

let token: string;
beforeAll(async () => {
  token = await mintToken("admin");
});

const prNumber = (scope: string) => scope.slice("pr-".length);
const callbackOf = (scope: string) => `https://${scope}.preview.example.com/callback`;

/** `npm run webhook -- <args>` against the suite's instance with its secret (overridable). */
async function webhook(args: string[], secret = inject("webhookSecret")) {
  const result: CliResult = await run(process.execPath, [
    join(ROOT, "scripts", "webhook.mjs"),
    ...args,
    "--url",
    url(),
    "--secret",
    secret,
  ]).done;
  return { ...result, body: JSON.parse(result.stdout) as Record<string, unknown> };
}

async function api(method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${url()}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function applyExample(scope: string): Promise<Response> {
  const plan = JSON.parse(readFileSync(EXAMPLE_PLAN, "utf8"));
  return api("POST", `/v1/scopes/preview/${scope}/apply`, { plan, wait: true });
}

/** The run's status and each line's result, e.g. `succeeded: created created created`. */
async function outcome(res: Response): Promise<string> {
  const result = (await res.json()) as { run: { status: string }; lines: Array<{ result: string }> };
  return `${result.run.status}: ${result.lines.map((l) => l.result).join(" ")}`;
}
const CREATED = "succeeded: created created created";
const UNCHANGED = "succeeded: unchanged unchanged unchanged";

async function callbacks(): Promise<string[]> {
  const res = await api("GET", `/v1/emulators/${DEMO_HOST}`);
  const body = (await res.json()) as { state: Record<string, { callbacks: string[] }> };
  return body.state["client:preview-app"]?.callbacks ?? [];
}

async function ledgerKeys(scope: string): Promise<string[]> {
  const res = await api("GET", `/v1/scopes/preview/${scope}/ledger`);
  const body = (await res.json()) as { ledger: Array<{ key: string }> };
  return body.ledger.map((e) => e.key);
}

/** Polls until `check` holds or the deadline passes; returns the last value either way. */
async function until<T>(read: () => Promise<T>, check: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + DESTROY_DEADLINE_MS;
  let value = await read();
  while (!check(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, POLL_MS));
    value = await read();
  }
  return value;
}

describe("npm run webhook against wrangler dev", () => {
  it("a signed close of pr-B queues its destroy: pr-B's entries go, pr-A's stay; a redelivery is ignored; after a reopen pr-B applies again", async ({
    expect,
  }) => {
    const [a, b] = [freshPr(), freshPr()];
    const applied = await Promise.all([applyExample(a), applyExample(b)]);
    for (const res of applied) expect(await outcome(res)).toBe(CREATED);
    expect(await callbacks()).toEqual(expect.arrayContaining([callbackOf(a), callbackOf(b)]));

    const closedAt = new Date();
    const close = await webhook(["closed", "--pr", prNumber(b), "--updated-at", githubTimestamp(closedAt)]);
    expect(close.code).toBe(0);
    expect(close.body).toMatchObject({ scope: b, applied: true, status: "closed", destroysEnqueued: 1 });
    const delivery = close.body.delivery as string;

    // The local queue runs the destroy; wait for its outcome.
    expect(
      await until(
        () => ledgerKeys(b),
        (keys) => keys.length === 0,
      ),
    ).toEqual([]);
    const after = await until(callbacks, (list) => !list.includes(callbackOf(b)));
    expect(after).not.toContain(callbackOf(b));
    expect(after).toContain(callbackOf(a));
    expect(await ledgerKeys(a)).toHaveLength(3);

    // The closed scope refuses applies, and says a retry cannot help.
    const refused = await applyExample(b);
    expect(refused.status).toBe(409);
    const problem = (await refused.json()) as Record<string, unknown>;
    expect(problem).toMatchObject({
      code: "CONCURRENT_MODIFICATION",
      retriable: false,
      scopeStatus: "closed",
    });
    expect(problem.detail).toMatch(/Reopen the pull request/);

    // GitHub's "Redeliver": same delivery id, same payload.
    const redelivered = await webhook([
      "closed",
      "--pr",
      prNumber(b),
      "--updated-at",
      githubTimestamp(closedAt),
      "--delivery",
      delivery,
    ]);
    expect(redelivered.code).toBe(0);
    expect(redelivered.body).toMatchObject({ delivery, duplicate: true, destroysEnqueued: 0 });

    const reopenedAt = new Date(closedAt.getTime() + 60_000);
    const reopen = await webhook([
      "reopened",
      "--pr",
      prNumber(b),
      "--updated-at",
      githubTimestamp(reopenedAt),
    ]);
    expect(reopen.code).toBe(0);
    expect(reopen.body).toMatchObject({ scope: b, applied: true, status: "open", destroysEnqueued: 0 });
    expect(await outcome(await applyExample(b))).toBe(CREATED);

    // The close's delivery id again, now with a newer revision: the id alone makes it a duplicate,
    // so the scope stays open and nothing is destroyed.
    const replayed = await webhook([
      "closed",
      "--pr",
      prNumber(b),
      "--updated-at",
      githubTimestamp(new Date(reopenedAt.getTime() + 60_000)),
      "--delivery",
      delivery,
    ]);
    expect(replayed.body).toMatchObject({ delivery, duplicate: true, status: "open", destroysEnqueued: 0 });
    expect(await outcome(await applyExample(b))).toBe(UNCHANGED);
    expect(await callbacks()).toEqual(expect.arrayContaining([callbackOf(a), callbackOf(b)]));
  });

  it("a forged signature is refused 401 and changes nothing: wrong secret, or a body altered after signing", async ({
    expect,
  }) => {
    const scope = freshPr();
    expect(await outcome(await applyExample(scope))).toBe(CREATED);

    const wrongSecret = await webhook(["closed", "--pr", prNumber(scope)], "not-the-webhook-secret");
    expect(wrongSecret.code).toBe(1);
    expect(wrongSecret.body).toMatchObject({ status: 401, code: "UNAUTHENTICATED", retriable: false });

    // Signed for pr-1, then re-pointed at this scope: the signature no longer matches the bytes.
    const { body } = pullRequestPayload({ action: "closed", pr: 1 });
    const signature = `sha256=${createHmac("sha256", inject("webhookSecret")).update(body).digest("hex")}`;
    const tampered = body.replace(/"number":1,/, `"number":${prNumber(scope)},`);
    expect(tampered).not.toBe(body);
    const res = await fetch(`${url()}/v1/webhooks/github`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-github-event": "pull_request",
        "x-github-delivery": crypto.randomUUID(),
        "x-hub-signature-256": signature,
      },
      body: tampered,
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: "UNAUTHENTICATED" });

    // Still open (an apply is not refused) and still owning its entries.
    expect(await outcome(await applyExample(scope))).toBe(UNCHANGED);
    expect(await ledgerKeys(scope)).toHaveLength(3);
    expect(await callbacks()).toContain(callbackOf(scope));
  });
});
