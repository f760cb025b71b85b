/**
 * A `{branch}` pattern (Vercel's `app-git-{branch}-acme.vercel.app`) names a pull request by its
 * head branch (docs/design.md, "Adopting existing entries"): GitHub's list says whose head the
 * branch is — the open pull request when one is, else the newest closed one; a branch with no pull
 * request, or the head of two open ones, keeps its entry as it is.
 */
import { describe, expect, it } from "vitest";
import { adopt, adoptionBody } from "../../helpers/adoption";
import { testApp } from "../../helpers/app";
import { freshAuth0Domain } from "../../helpers/emulators";
import { freshGitHubToken, seedGitHub } from "../../helpers/emulators-github";
import { seedTenant } from "../../helpers/plans";

const VERCEL = "https://app-git-{branch}-acme.vercel.app";
const url = (slug: string) => `https://app-git-${slug}-acme.vercel.app`;

describe("{branch} patterns", () => {
  it("map each branch's entry to the pull request it heads, as GitHub lists them", async () => {
    const domain = freshAuth0Domain("branch");
    const tag = crypto.randomUUID().slice(0, 6);
    // Above every other test's numbers: GitHub lists the newest first, and the repository is shared.
    const n = 9_000_000_000 + Math.floor(Math.random() * 9e7) * 10;
    const [login, gone, twice, none] = [`feat/Login-${tag}`, `old-${tag}`, `dup-${tag}`, `no-pr-${tag}`];
    const slug = (b: string) => b.toLowerCase().replace(/[^a-z0-9]+/g, "-");
    const entries = [url(slug(login)), url(gone), url(twice), url(none)];
    await seedTenant(domain, { callbacks: entries });
    const token = freshGitHubToken();
    await seedGitHub(token, {
      [n]: { state: "closed", head: login },
      [n + 1]: { state: "open", head: login },
      [n + 2]: { state: "closed", head: gone },
      [n + 3]: { state: "open", head: twice },
      [n + 4]: { state: "open", head: twice },
    });
    const result = await adopt(testApp(), {
      ...adoptionBody({ domain, token }, { apply: true }),
      patterns: [VERCEL],
    });
    const row = (key: string) => result.entries.find((e) => e.key === key);
    expect(row(url(slug(login)))).toMatchObject({
      scope: `pr-${n + 1}`,
      pullRequest: { number: n + 1, state: "open" },
      outcome: "adopted",
    });
    expect(row(url(gone))).toMatchObject({
      scope: `pr-${n + 2}`,
      outcome: "kept",
      reason: "pull-request-closed",
    });
    expect(row(url(twice))).toMatchObject({ scope: null, outcome: "kept", reason: "ambiguous" });
    expect(row(url(none))).toMatchObject({ scope: null, outcome: "kept", reason: "no-pull-request" });
  });
});
