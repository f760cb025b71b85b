/**
 * The lock views are true from a lease's first second (issue 29, finding 4): a repository-bound
 * token lists the locks its repository's runs hold as soon as they hold them, `GET /v1/locks/{key}`
 * names its own run as the holder of a parent lock, and a lock whose holder died (no renewal, no
 * read) is listed like any other (docs/storage.md, "R2 held-lock index"). Nothing here reads a lock
 * before the view is taken: a read would list it and hide what the views do on their own.
 */
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { heldIndexKey } from "../../shared/lock-index";
import type { LockState } from "../../shared/schemas/lock";
import type { RunOrigin } from "../../shared/schemas/provenance";
import { lockTarget } from "../../workers/locks/lock-target";
import { call, testApp } from "../helpers/app";
import { freshPr } from "../helpers/engine";
import { granted } from "../helpers/locks";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { mintServiceToken } from "../helpers/tokens";

const TTL_MS = 600_000;
const app = testApp();
const hex = () => crypto.randomUUID().replaceAll("-", "");

function originOf(scope: string): RunOrigin {
  return {
    repositoryId: DEFAULT_REPOSITORY.id,
    repository: DEFAULT_REPOSITORY.name,
    scope: `preview/${scope}`,
    provenance: {
      repository: DEFAULT_REPOSITORY.name,
      event: "pull_request",
      ref: "refs/pull/3/merge",
      pullRequest: 3,
      headBranch: "feat",
      sha: null,
      actor: "octocat",
      workflow: "preview",
      runUrl: null,
      declared: false,
    },
  };
}

/** A run of the default repository holding its scope lock and one parent lock, as the engine takes them. */
async function youngRun(): Promise<{ run: string; scopeKey: string; parentKey: string }> {
  const scope = freshPr();
  const run = `run-young-${hex().slice(0, 8)}`;
  const scopeKey = `scope:${DEFAULT_REPOSITORY.id}/preview/${scope}`;
  const parentKey = `_locks/${hex()}`;
  for (const key of [scopeKey, parentKey]) {
    granted(await lockTarget(env, key).acquire({ holder: run, ttlMs: TTL_MS, origin: originOf(scope) }));
  }
  return { run, scopeKey, parentKey };
}

/**
 * Whether each key's index entry lands within a bound (the put runs behind the grant's answer for
 * the few milliseconds an R2 write takes); the bound is only how long a test waits for an entry
 * never written. Polled with R2 heads, never a read of the lock (which would write the entry).
 */
async function entriesLand(keys: string[], ms = 3_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  do {
    const heads = await Promise.all(keys.map((key) => env.RECEIPTS.head(heldIndexKey(key))));
    if (heads.every((h) => h !== null)) return true;
    await scheduler.wait(5);
  } while (Date.now() < deadline);
  return false;
}

async function boundGet(path: string): Promise<Response> {
  const token = await mintServiceToken({
    role: "viewer",
    repository: DEFAULT_REPOSITORY.name,
    sub: "young-viewer",
  });
  return call(app, "GET", path, undefined, { authorization: `Bearer ${token}` });
}

describe("lock views of a young lease", () => {
  it("a bound token lists the scope and parent locks its repository's run took a moment ago", async ({
    expect,
  }) => {
    const { run, scopeKey, parentKey } = await youngRun();
    expect(await entriesLand([scopeKey, parentKey])).toBe(true);

    const res = await boundGet("/v1/locks");
    expect(res.status).toBe(200);
    const { locks } = (await res.json()) as { locks: LockState[] };
    const byKey = new Map(locks.map((l) => [l.key, l]));
    expect(byKey.get(scopeKey)?.holder).toBe(run);
    expect(byKey.get(parentKey)?.holder).toBe(run);
  });

  it("GET /v1/locks/{parent} names the bound repository's own run, not another repository's", async ({
    expect,
  }) => {
    const { run, parentKey } = await youngRun();

    const res = await boundGet(`/v1/locks/${encodeURIComponent(parentKey)}`);
    expect(res.status).toBe(200);
    const state = (await res.json()) as LockState;
    expect(state.holder).toBe(run);
    expect(state.heldBy).toMatchObject({ run, repository: DEFAULT_REPOSITORY.name, actor: "octocat" });
  });

  it("control: another repository's run naming the same scope is still hidden", async ({ expect }) => {
    const { scopeKey } = await youngRun();
    const scope = scopeKey.split("/").slice(1).join("/");
    const otherRun = `run-other-${hex().slice(0, 8)}`;
    const parentKey = `_locks/${hex()}`;
    // Same environment and scope name, another repository: the bound repository's scope lock of
    // that name is held by its own run, not this one.
    const origin = {
      ...originOf(scope.split("/")[1] ?? ""),
      repositoryId: 5151,
      repository: "acme/other-api",
    };
    granted(await lockTarget(env, parentKey).acquire({ holder: otherRun, ttlMs: TTL_MS, origin }));

    // Not the bound repository's run, and nothing else of the bound repository is at the lock: the
    // lock is not there for it at all (docs/security.md, "What a repository sees of another").
    const res = await boundGet(`/v1/locks/${encodeURIComponent(parentKey)}`);
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain(otherRun);
  });

  it("a lock whose holder died after taking it (never renewed, never read) is listed", async ({ expect }) => {
    const { scopeKey, parentKey } = await youngRun();
    // The holder is gone: nothing but its grant ever reaches either object again.
    expect(await entriesLand([scopeKey, parentKey])).toBe(true);

    const res = await call(app, "GET", "/v1/locks");
    const keys = ((await res.json()) as { locks: LockState[] }).locks.map((l) => l.key);
    expect(keys).toContain(scopeKey);
    expect(keys).toContain(parentKey);
  });
});
