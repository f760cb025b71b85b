/**
 * The shares a lock object counts with a holder's ownership read (docs/design.md, "A share of each
 * list"): per op, each owner's entries, and each repository's scopes' entries together, where an
 * entry two of its scopes share counts once. Only the ops of the items asked; an ownership change's
 * answer carries none.
 */
import { describe, it } from "vitest";
import { freshScopeKey, granted, stub } from "../helpers/locks";

const TTL_MS = 30_000;
const ORIGINS = "auth0.webOrigin";
const LOGOUT = "auth0.logoutUrl";
const url = (n: number) => `https://o${n}.example.com`;

describe("the shares of a list, as the lock object counts them", () => {
  it("two scopes of repository 7 share one origin and hold one each; repository 9 holds two: 7 counts 3, 9 counts 2", async ({
    expect,
  }) => {
    const key = freshScopeKey("shares");
    const lock = stub(key);
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const add = (n: number, owner: string, op = ORIGINS) => ({
      action: "add" as const,
      op,
      key: url(n),
      owner,
    });
    const changed = granted(
      await lock.changeOwners({
        key,
        holder: "run-a",
        token: a.token,
        changes: [
          add(1, "7/preview/pr-1"),
          add(1, "7/preview/pr-2"),
          add(2, "7/preview/pr-1"),
          add(3, "7/preview/pr-2"),
          add(4, "9/preview/pr-1"),
          add(5, "9/staging/pr-1"),
          add(6, "7/preview/pr-1", LOGOUT),
        ],
      }),
    );
    expect(changed).not.toHaveProperty("shares");
    const view = granted(
      await lock.owners({ key, holder: "run-a", token: a.token, items: [{ op: ORIGINS, key: url(9) }] }),
    );
    expect(view.shares).toEqual({
      owners: [
        { op: ORIGINS, owner: "7/preview/pr-1", entries: 2 },
        { op: ORIGINS, owner: "7/preview/pr-2", entries: 2 },
        { op: ORIGINS, owner: "9/preview/pr-1", entries: 1 },
        { op: ORIGINS, owner: "9/staging/pr-1", entries: 1 },
      ],
      repositories: [
        { op: ORIGINS, repositoryId: 7, entries: 3 },
        { op: ORIGINS, repositoryId: 9, entries: 2 },
      ],
    });
  });
});
