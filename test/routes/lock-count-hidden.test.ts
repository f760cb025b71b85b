/**
 * A parent lock shared by several repositories, read by a caller bound to one (docs/security.md,
 * "Repository isolation"): how many times the lock was taken (`lastToken`, and the token of a holder
 * it may not see) counts other repositories' runs, so it is not answered; an unbound caller reads it.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { RunOrigin } from "../../shared/schemas/provenance";
import { lockStub, lockTarget } from "../../workers/locks/lock-target";
import { call, testApp } from "../helpers/app";
import { freshPr, untilWaiters } from "../helpers/engine";
import { granted } from "../helpers/locks";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { mintServiceToken } from "../helpers/tokens";

const TTL_MS = 600_000;
const app = testApp();
const hex = () => crypto.randomUUID().replaceAll("-", "");
const OTHER_ID = 700_000_002;

function originOf(repositoryId: number, scope: string): RunOrigin {
  const repository = repositoryId === DEFAULT_REPOSITORY.id ? DEFAULT_REPOSITORY.name : "acme/gamma";
  return {
    repositoryId,
    repository,
    scope: `preview/${scope}`,
    provenance: {
      repository,
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

/** `run` of the repository takes its scope lock, then `parentKey`, as the engine does. */
async function take(repositoryId: number, run: string, parentKey: string) {
  const scope = freshPr();
  const scopeKey = `scope:${repositoryId}/preview/${scope}`;
  const origin = originOf(repositoryId, scope);
  granted(await lockTarget(env, scopeKey).acquire({ holder: run, ttlMs: TTL_MS, origin }));
  return granted(await lockTarget(env, parentKey).acquire({ holder: run, ttlMs: TTL_MS, origin }));
}

async function get(path: string, repository?: string): Promise<Record<string, unknown>> {
  const token = await mintServiceToken({
    role: repository ? "viewer" : "admin",
    ...(repository ? { repository } : {}),
    sub: "count-viewer",
  });
  const res = await call(app, "GET", path, undefined, { authorization: `Bearer ${token}` });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

describe("a shared parent lock's count of takes", () => {
  it("a bound caller is not told how many times other repositories took the lock", async () => {
    const parentKey = `_locks/${hex()}`;
    // Another repository's runs take and release it three times; then one holds it, and ours waits.
    for (let i = 0; i < 3; i++) {
      const run = `run-gamma-${i}-${hex().slice(0, 6)}`;
      const grant = await take(OTHER_ID, run, parentKey);
      await lockStub(env, parentKey).release({ key: parentKey, holder: run, token: grant.token });
    }
    const holder = `run-gamma-h-${hex().slice(0, 6)}`;
    const held = await take(OTHER_ID, holder, parentKey);
    const ours = `run-alpha-${hex().slice(0, 6)}`;
    const scope = freshPr();
    const origin = originOf(DEFAULT_REPOSITORY.id, scope);
    granted(
      await lockTarget(env, `scope:${DEFAULT_REPOSITORY.id}/preview/${scope}`).acquire({
        holder: ours,
        ttlMs: TTL_MS,
        origin,
      }),
    );
    const waiting = lockTarget(env, parentKey).acquire({
      holder: ours,
      ttlMs: TTL_MS,
      origin,
      wait: true,
      waitTimeoutMs: 20_000,
    });
    await untilWaiters(parentKey, 1);
    const path = `/v1/locks/${encodeURIComponent(parentKey)}`;
    const bound = await get(path, DEFAULT_REPOSITORY.name);
    expect(bound.holder).toBe("(another repository's run)");
    expect(bound.lastToken).toBeUndefined();
    expect(bound.token).toBeNull();
    // Control: an unbound caller reads the count and the holder's token.
    const admin = await get(path);
    expect(admin.lastToken).toBe(4);
    expect(admin.token).toBe(4);
    await lockStub(env, parentKey).release({ key: parentKey, holder, token: held.token });
    granted(await waiting);
  }, 30_000);
});
