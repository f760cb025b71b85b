/**
 * A repository-bound caller learns nothing of a provider object only another repository uses
 * (docs/security.md, "What a repository sees of another"). Hello-World applies to an Auth0
 * application; `acme/other`'s callers — a bound viewer, a bound ci token and a pull-request job's
 * GitHub OIDC token — ask for it through every door that names it: `GET /v1/locks/{key}` (by key
 * and by identity), the dashboard's object page, the lock feed, and a preview of a line whose
 * entry Hello-World holds. Each answers as for an object, or an entry, nobody has: 404 with the
 * unknown key's body, no feed message, `would-create`. The control: Hello-World's caller of the
 * same kind asks the same and is answered as before.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { parentLockKey } from "../../shared/lock-keys";
import type { LockState } from "../../shared/schemas/lock";
import type { RunOrigin } from "../../shared/schemas/provenance";
import type { RepositoryRef } from "../../shared/schemas/repository";
import type { LineResult, RunResult } from "../../shared/schemas/run";
import { SecretRegistry } from "../../shared/secrets";
import { lockTarget } from "../../workers/locks/lock-target";
import { call } from "../helpers/app";
import { freshAuth0Domain } from "../helpers/emulators";
import { appIdentity, appLockKey, freshPr } from "../helpers/engine";
import { auth0Plan, seedTenant } from "../helpers/plans";
import {
  CALLER_KINDS,
  type CallerKind,
  FOREIGN,
  OWNING,
  type TwoRepositories,
  twoRepositories,
  twoRepositoryEnv,
} from "../helpers/two-repositories";
import { ORIGIN } from "./session";

const CI_KINDS = ["ci", "github"] as const satisfies readonly CallerKind[];
const hex = () => crypto.randomUUID().replaceAll("-", "");
let t: TwoRepositories;
let domain: string;
let key: string;
let identity: string;
const ownScope = freshPr();
const handAdded = "https://hand-added.preview.example.com/callback";
const ownUrl = `https://${ownScope}.preview.example.com/callback`;
/** A key and a hash no lock ever had: what "nothing there" answers. */
const unknownHash = hex();
const unknownKey = `_locks/${unknownHash}`;

beforeAll(async () => {
  t = await twoRepositories();
  domain = freshAuth0Domain("fo");
  await seedTenant(domain, { callbacks: [handAdded] });
  key = await appLockKey(domain);
  identity = appIdentity(domain);
  // Hello-World's scope writes its entry: the application's owners are Hello-World's only.
  const res = await call(
    t.app,
    "POST",
    `/v1/scopes/preview/${ownScope}/apply?repository=${OWNING.name}`,
    { plan: auth0Plan(domain, [{ id: "callback", op: "auth0.callbackUrl", url: ownUrl }], "*") },
    {},
    twoRepositoryEnv(),
  );
  if (res.status !== 200) throw new Error(`apply: ${res.status} ${await res.text()}`);
});

/** A problem's body with what the caller named (key, identity or hash; as sent, and encoded) taken out. */
async function problemWithout(res: Response, ...named: string[]) {
  let text = JSON.stringify(await res.json());
  for (const n of named) text = text.replaceAll(encodeURIComponent(n), "<named>").replaceAll(n, "<named>");
  return JSON.parse(text);
}

describe.each(CALLER_KINDS)("acme/other's %s", (kind: CallerKind) => {
  it("GET /v1/locks/{key} of Hello-World's object is 404, the body an unknown key gets", async () => {
    const token = await t.token(FOREIGN, kind);
    const res = await t.send("GET", `/v1/locks/${encodeURIComponent(key)}`, token);
    const unknown = await t.send("GET", `/v1/locks/${encodeURIComponent(unknownKey)}`, token);
    expect([res.status, unknown.status]).toEqual([404, 404]);
    expect(await problemWithout(res, key)).toEqual(await problemWithout(unknown, unknownKey));
  });

  it("GET /v1/locks/{identity} of Hello-World's object is 404 too, as for an object nobody has", async () => {
    const token = await t.token(FOREIGN, kind);
    const nobodys = appIdentity(freshAuth0Domain("nobody"));
    const nobodysKey = await parentLockKey(nobodys, new SecretRegistry());
    const res = await t.send("GET", `/v1/locks/${encodeURIComponent(identity)}`, token);
    const unknown = await t.send("GET", `/v1/locks/${encodeURIComponent(nobodys)}`, token);
    expect([res.status, unknown.status]).toEqual([404, 404]);
    expect(await problemWithout(res, identity, key)).toEqual(
      await problemWithout(unknown, nobodys, nobodysKey),
    );
  });

  it("control: Hello-World's caller of the same kind reads the lock", async () => {
    const token = await t.token(OWNING, kind);
    const res = await t.send("GET", `/v1/locks/${encodeURIComponent(key)}`, token);
    expect(res.status).toBe(200);
    const state = (await res.json()) as LockState;
    expect(state).toMatchObject({ key, identity });
    // A bound caller reads no count of grants: it counts other repositories' runs too.
    expect(state.lastToken).toBeUndefined();
  });

  it("the object page of Hello-World's object is 404, as for a hash nobody has", async () => {
    const token = await t.token(FOREIGN, kind);
    const hash = key.slice("_locks/".length);
    const res = await t.send("GET", `/dashboard/objects/${hash}`, token);
    const unknown = await t.send("GET", `/dashboard/objects/${unknownHash}`, token);
    expect([res.status, unknown.status]).toEqual([404, 404]);
    expect(await problemWithout(res, hash)).toEqual(await problemWithout(unknown, unknownHash));
    // Control: Hello-World's caller sees the page, its identity and its entry.
    const own = await t.send("GET", `/dashboard/objects/${hash}`, await t.token(OWNING, kind));
    expect(own.status).toBe(200);
    const html = await own.text();
    expect(html).toContain(identity);
    expect(html).toContain(ownUrl);
  });

  it("the lock feed tells acme/other's socket nothing of Hello-World's object; Hello-World's hears it", async () => {
    const foreign = await openFeed(await t.token(FOREIGN, kind, 720 + CALLER_KINDS.indexOf(kind)));
    const owning = await openFeed(await t.token(OWNING, kind, 730 + CALLER_KINDS.indexOf(kind)));
    const run = `run-fo-${hex().slice(0, 8)}`;
    const grant = await lockTarget(env, key, identity).acquire({
      holder: run,
      ttlMs: 30_000,
      origin: originOf(OWNING, freshPr()),
    });
    if (!grant.ok) throw new Error(grant.error.message);
    try {
      await heardOnlyByOwning(foreign, owning);
    } finally {
      await lockTarget(env, key, identity).release({ holder: run, token: grant.value.token });
      foreign.close();
      owning.close();
    }
  });
});

async function heardOnlyByOwning(foreign: Feed, owning: Feed): Promise<void> {
  // Hello-World's socket hears of it in the broadcast acme/other's socket would have heard it in.
  await owning.heard(key);
  // Then a change acme/other hears (its own scope): once it arrives, an earlier one would have.
  const theirScope = `scope:${FOREIGN.id}/preview/${freshPr()}`;
  const other = await lockTarget(env, theirScope).acquire({ holder: "run-barrier", ttlMs: 30_000 });
  if (!other.ok) throw new Error(other.error.message);
  await foreign.heard(theirScope);
  expect(foreign.keys).not.toContain(key);
}

/** Previews are a ci caller's: both kinds of CI token. */
describe.each(CI_KINDS)("acme/other's %s token", (kind) => {
  it("a preview of a line on Hello-World's entry answers as for an entry nobody has", async () => {
    const pr = 700 + CI_KINDS.indexOf(kind);
    const token = await t.token(FOREIGN, kind, pr);
    const nobodys = `https://nobody-${hex().slice(0, 8)}.preview.example.com/callback`;
    const plan = auth0Plan(
      domain,
      [
        { id: "theirs", op: "auth0.callbackUrl", url: ownUrl },
        { id: "nobodys", op: "auth0.callbackUrl", url: nobodys },
        { id: "hand", op: "auth0.callbackUrl", url: handAdded },
      ],
      "*",
    );
    const res = await t.send("POST", `/v1/scopes/preview/pr-${pr}/preview`, token, { plan });
    expect(res.status).toBe(200);
    const lines = byId((await res.json()) as RunResult);
    const shape = (l: LineResult | undefined) => ({ diff: l?.diff, result: l?.result });
    expect(shape(lines.theirs)).toEqual({ diff: "create", result: "would-create" });
    expect(shape(lines.theirs)).toEqual(shape(lines.nobodys));
    // A person's entry (no repository's) is still told as it is.
    expect(shape(lines.hand)).toEqual({ diff: "unchanged", result: "unchanged" });
  });

  it("control: Hello-World's preview of another of its scopes finds its entry there", async () => {
    const pr = 710 + CI_KINDS.indexOf(kind);
    const token = await t.token(OWNING, kind, pr);
    const plan = auth0Plan(domain, [{ id: "theirs", op: "auth0.callbackUrl", url: ownUrl }], "*");
    const res = await t.send("POST", `/v1/scopes/preview/pr-${pr}/preview`, token, { plan });
    expect(res.status).toBe(200);
    expect(byId((await res.json()) as RunResult).theirs).toMatchObject({
      diff: "unchanged",
      result: "unchanged",
    });
  });
});

function byId(result: RunResult): Record<string, LineResult> {
  return Object.fromEntries(result.lines.map((l) => [l.id, l]));
}

function originOf(repository: RepositoryRef, scope: string): RunOrigin {
  return {
    repositoryId: repository.id,
    repository: repository.name,
    scope: `preview/${scope}`,
    provenance: {
      repository: repository.name,
      event: "pull_request",
      ref: "refs/pull/9/merge",
      pullRequest: 9,
      headBranch: "feat",
      sha: null,
      actor: "octocat",
      workflow: "preview",
      runUrl: null,
      declared: false,
    },
  };
}

interface Feed {
  keys: string[];
  heard(key: string): Promise<void>;
  close(): void;
}

/** A feed socket opened with a bearer token (a tool's: no Origin), recording every key it hears. */
async function openFeed(token: string): Promise<Feed> {
  const ctx = createExecutionContext();
  const res = await t.app.request(
    `${ORIGIN}/dashboard/feed`,
    { headers: { upgrade: "websocket", authorization: `Bearer ${token}` } },
    twoRepositoryEnv(),
    ctx,
  );
  await waitOnExecutionContext(ctx);
  const ws = res.webSocket;
  if (!ws) throw new Error(`feed: ${res.status} ${await res.text()}`);
  const keys: string[] = [];
  const waiting = new Map<string, () => void>();
  const hello = new Promise<void>((resolve) => {
    ws.addEventListener("message", (event) => {
      const m = JSON.parse(String(event.data)) as { type: string; key?: string };
      if (m.type === "hello") resolve();
      if (m.key === undefined) return;
      keys.push(m.key);
      waiting.get(m.key)?.();
    });
  });
  ws.accept();
  await hello;
  return {
    keys,
    heard: (k) =>
      keys.includes(k) ? Promise.resolve() : new Promise<void>((resolve) => waiting.set(k, resolve)),
    close: () => ws.close(1000, "done"),
  };
}
