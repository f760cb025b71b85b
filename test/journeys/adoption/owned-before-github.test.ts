/**
 * Ownership before GitHub's answer (docs/design.md, "Adopting existing entries"): an entry a pull
 * request's own apply created is that scope's, whatever GitHub says of the pull request — here it
 * has never heard of it (a local emulator, a repository moved). The table names the scope and says
 * it is already its own; only an entry nobody owns is "GitHub has no such pull request".
 */
import { describe, expect, it } from "vitest";
import { adopt, adoptionBody, PR_PATTERN, prUrl } from "../../helpers/adoption";
import { apply, testApp } from "../../helpers/app";
import { freshAuth0Domain } from "../../helpers/emulators";
import { freshGitHubToken, seedGitHub } from "../../helpers/emulators-github";
import { auth0Plan, seedTenant } from "../../helpers/plans";

const app = testApp();

describe("an entry its scope created, of a pull request GitHub does not know", () => {
  it("is already-owned, naming the scope; control: one nobody owns has no pull request", async () => {
    const domain = freshAuth0Domain("owned-gh");
    const n = 900_000_000 + Math.floor(Math.random() * 9e7);
    const stray = prUrl(n + 1);
    await seedTenant(domain, { callbacks: [stray] });
    const applied = await apply(
      app,
      "preview",
      `pr-${n}`,
      auth0Plan(domain, [{ id: "callback", op: "auth0.callbackUrl", url: PR_PATTERN }]),
    );
    expect(applied.lines[0]).toMatchObject({ key: prUrl(n), result: "created" });
    const token = freshGitHubToken();
    await seedGitHub(token, {});

    const result = await adopt(app, { ...adoptionBody({ domain, token }), patterns: [PR_PATTERN] });
    expect(result.entries.find((e) => e.key === prUrl(n))).toMatchObject({
      scope: `pr-${n}`,
      pullRequest: { number: n, state: "missing" },
      outcome: "kept",
      reason: "already-owned",
    });
    expect(result.entries.find((e) => e.key === stray)).toMatchObject({
      scope: null,
      pullRequest: { number: n + 1, state: "missing" },
      outcome: "kept",
      reason: "no-pull-request",
    });
  });
});
