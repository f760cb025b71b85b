/**
 * The emulated GitHub REST API answers what `sponson adopt` asks the way GitHub does
 * (docs.github.com/rest/pulls): the repository, one pull request (404 `Not Found` when there is
 * none), the list newest first in pages with a `Link` header; errors as `{ message,
 * documentation_url, status }`; 401 `Bad credentials`; a private repository hidden (404) from a
 * token that cannot see it; the primary rate limit as 403 with `x-ratelimit-remaining: 0`; a
 * request without a User-Agent refused before any route.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { providerFetch } from "../../../dev/emulators/transport";
import { freshGitHubToken, GITHUB_API_HOST, seedGitHub } from "../../helpers/emulators-github";
import { DEFAULT_REPOSITORY } from "../../helpers/repositories";

const send = providerFetch(env);
const base = `https://${GITHUB_API_HOST}/repos/${DEFAULT_REPOSITORY.name}`;
const headers = (token: string) => ({
  authorization: `Bearer ${token}`,
  accept: "application/vnd.github+json",
  "user-agent": "fidelity-test",
});

async function seeded(pulls: Record<number, "open" | "closed">, grant = {}) {
  const token = freshGitHubToken();
  await seedGitHub(token, pulls, grant);
  return token;
}

describe("GitHub emulator fidelity", () => {
  it("GET /repos/{owner}/{repo} → the repository with its numeric id, and the core rate-limit headers", async () => {
    const token = await seeded({});
    const res = await send(base, { headers: headers(token) });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(await res.json()).toMatchObject({
      id: DEFAULT_REPOSITORY.id,
      full_name: DEFAULT_REPOSITORY.name,
      private: true,
    });
    expect(res.headers.get("x-ratelimit-limit")).toBe("5000");
    expect(res.headers.get("x-ratelimit-resource")).toBe("core");
    expect(Number(res.headers.get("x-ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000);
    expect(res.headers.get("x-github-api-version-selected")).toBe("2022-11-28");
  });

  it("GET …/pulls/{n} → the pull request (state, head.ref, merged); 404 Not Found for a number with none", async () => {
    const n = 7_000_000 + Math.floor(Math.random() * 1e6);
    const token = await seeded({ [n]: "closed" });
    const res = await send(`${base}/pulls/${n}`, { headers: headers(token) });
    expect(res.status).toBe(200);
    const pull = (await res.json()) as Record<string, unknown>;
    expect(pull).toMatchObject({
      number: n,
      state: "closed",
      merged: false,
      head: { ref: `feature-${n}`, repo: { full_name: DEFAULT_REPOSITORY.name } },
      base: { ref: "main" },
      html_url: `https://github.com/${DEFAULT_REPOSITORY.name}/pull/${n}`,
    });
    expect(typeof pull.closed_at).toBe("string");

    const missing = await send(`${base}/pulls/${n + 1}`, { headers: headers(token) });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({
      message: "Not Found",
      documentation_url: "https://docs.github.com/rest/pulls/pulls#get-a-pull-request",
      status: "404",
    });
  });

  it("GET …/pulls?state=all → newest first, per_page pages with GitHub's Link header; the list shape has no `merged`", async () => {
    const first = 8_000_000 + Math.floor(Math.random() * 1e5) * 10;
    const token = await seeded({ [first]: "open", [first + 1]: "closed", [first + 2]: "open" });
    const page1 = await send(`${base}/pulls?state=all&per_page=2&page=1`, { headers: headers(token) });
    const list = (await page1.json()) as Array<Record<string, unknown>>;
    expect(list.length).toBe(2);
    expect((list[0]?.number as number) > (list[1]?.number as number)).toBe(true);
    expect(list[0]).not.toHaveProperty("merged");
    expect(page1.headers.get("link")).toMatch(
      new RegExp(
        `^<https://api\\.github\\.com/repositories/${DEFAULT_REPOSITORY.id}/pulls\\?state=all&per_page=2&page=2>; rel="next", <[^>]+>; rel="last"$`,
      ),
    );
    const open = (await (
      await send(`${base}/pulls?state=open&per_page=100`, { headers: headers(token) })
    ).json()) as Array<{ state: string }>;
    expect(open.every((p) => p.state === "open")).toBe(true);
    const bad = await send(`${base}/pulls?state=merged`, { headers: headers(token) });
    expect(bad.status).toBe(422);
    expect(await bad.json()).toMatchObject({ message: "Validation Failed", status: "422" });
  });

  it("401 Bad credentials for an unknown token; 404 for a private repository the token cannot see, or none at all", async () => {
    await seeded({});
    const unknown = await send(base, { headers: headers("ghp_nobody") });
    expect(unknown.status).toBe(401);
    expect(await unknown.json()).toEqual({
      message: "Bad credentials",
      documentation_url: "https://docs.github.com/rest",
      status: "401",
    });
    const other = await seeded({}, { repositories: ["acme/other"] });
    expect((await send(base, { headers: headers(other) })).status).toBe(404);
    const anonymous = await send(base, { headers: { "user-agent": "fidelity-test" } });
    expect(anonymous.status).toBe(404);
  });

  it("the primary rate limit: 403 with x-ratelimit-remaining 0 once the hour's requests are used", async () => {
    const token = await seeded({}, { remaining: 1 });
    expect((await send(base, { headers: headers(token) })).status).toBe(200);
    const limited = await send(base, { headers: headers(token) });
    expect(limited.status).toBe(403);
    expect(limited.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(((await limited.json()) as { message: string }).message).toMatch(/^API rate limit exceeded/);
  });

  it("no User-Agent: 403 from GitHub's front end, before any route", async () => {
    const token = await seeded({});
    const res = await send(base, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(403);
    expect(await res.text()).toContain("User-Agent");
  });
});
