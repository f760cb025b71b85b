/**
 * What `sponson adopt` asks GitHub (docs/design.md, "Adopting existing entries"): whether each pull
 * request a pattern names is open or closed, and which pull request a branch is the head of. Asked
 * with the token the admin's request carries, for that request only: it is registered as a secret
 * first, so no message, log line or answer can hold it, and it is kept nowhere. Asked before any
 * lease, like every remote call that is not the provider write itself.
 *
 * GitHub's REST API (docs.github.com/rest/pulls): `GET /repos/{owner}/{repo}` (the repository must
 * be the one configured: same numeric id), `GET /repos/{owner}/{repo}/pulls/{n}` (404: no such pull
 * request) and `GET /repos/{owner}/{repo}/pulls?state=all` (newest first, 100 a page). Retries,
 * timeouts and the final PROVIDER_ERROR are the provider adapters' own (providerRequest); GitHub's
 * primary rate limit is a 403 with `x-ratelimit-remaining: 0`, retried after its reset like a 429.
 */
import { z } from "zod";
import type { Clock } from "../../shared/clock";
import { SponsonError } from "../../shared/errors";
import { branchSlug } from "../../shared/placeholders";
import type { RepositoryRef } from "../../shared/schemas/repository";
import type { SecretRegistry } from "../../shared/secrets";
import { type ProviderHttpSpec, providerJson, providerRequest } from "../adapters/http/provider-request";
import { epochSecondsResetHeader, secondsResetHeader } from "../adapters/http/reset-headers";

export const GITHUB_API = "https://api.github.com";
/** Pages of 100 read to find a branch's pull request: the 1,000 newest pull requests. */
export const MAX_PULL_PAGES = 10;

const retryAfter = secondsResetHeader("retry-after");
const rateReset = epochSecondsResetHeader("x-ratelimit-reset");

const GITHUB: ProviderHttpSpec = {
  provider: "github",
  retryAfterMs: (response, nowMs) => retryAfter(response, nowMs) ?? rateReset(response, nowMs),
  describeError: (body) => ({
    message:
      typeof body === "object" && body !== null
        ? String((body as { message?: unknown }).message ?? "")
        : String(body),
  }),
  // The primary rate limit answers 403 (docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api).
  isThrottled: (status, body) =>
    status === 403 &&
    typeof body === "object" &&
    body !== null &&
    /rate limit/i.test(String((body as { message?: unknown }).message ?? "")),
};

const repositorySchema = z.looseObject({ id: z.number().int(), full_name: z.string() });
const pullSchema = z.looseObject({
  number: z.number().int().positive(),
  state: z.enum(["open", "closed"]),
  head: z.looseObject({ ref: z.string() }),
});
export type PullRequest = { number: number; state: "open" | "closed"; headRef: string };

export interface GitHubPullsOptions {
  token: string;
  repository: RepositoryRef;
  fetch: typeof fetch;
  clock: Clock;
  secrets: SecretRegistry;
}

export class GitHubPulls {
  readonly #o: GitHubPullsOptions;
  readonly #base: string;

  constructor(options: GitHubPullsOptions) {
    // Before anything is sent: a message quoting it is redacted from here on.
    options.secrets.register(options.token);
    this.#o = options;
    const [owner = "", name = ""] = options.repository.name.split("/");
    this.#base = `${GITHUB_API}/repos/${encodeURIComponent(owner)}/${encodeURIComponent(name)}`;
  }

  #headers() {
    return {
      accept: "application/vnd.github+json",
      authorization: `Bearer ${this.#o.token}`,
      "user-agent": "sponson-edge",
      "x-github-api-version": "2022-11-28",
    };
  }

  #ctx() {
    const { fetch, clock, secrets } = this.#o;
    return { fetch, clock, secrets };
  }

  /** The repository as the token sees it; refused unless it is the configured one (same id). */
  async checkRepository(): Promise<void> {
    const seen = await providerJson(
      this.#ctx(),
      GITHUB,
      { method: "GET", url: this.#base, headers: this.#headers() },
      repositorySchema,
    ).catch((err: unknown) => {
      if (err instanceof SponsonError && err.providerStatus === 404)
        throw new SponsonError(
          "PROVIDER_ERROR",
          `github: the token cannot see ${this.#o.repository.name} (404): it needs read access to its pull requests`,
          err.detail,
          { retriable: false },
        );
      throw err;
    });
    if (seen.id !== this.#o.repository.id)
      throw new SponsonError(
        "PROVIDER_ERROR",
        `github: ${seen.full_name} has id ${seen.id}; the service configures ${this.#o.repository.name} as ${this.#o.repository.id}`,
        { provider: "github" },
        { retriable: false },
      );
  }

  /** One pull request, or null when GitHub has none of that number. */
  async pull(n: number): Promise<PullRequest | null> {
    const response = await providerRequest(this.#ctx(), GITHUB, {
      method: "GET",
      url: `${this.#base}/pulls/${n}`,
      headers: this.#headers(),
      accept: [404],
    });
    if (response.status === 404) {
      await response.body?.cancel();
      return null;
    }
    const parsed = pullSchema.safeParse(await response.json().catch(() => null));
    if (!parsed.success)
      throw new SponsonError("PROVIDER_ERROR", `github: unexpected answer for pull request ${n}`);
    return { number: parsed.data.number, state: parsed.data.state, headRef: parsed.data.head.ref };
  }

  /**
   * The pull request each branch slug is the head of: the open one when exactly one is, else the
   * newest closed one; several open ones make it ambiguous (null). Reads the newest pull requests,
   * at most MAX_PULL_PAGES pages, stopping once every slug has an open one.
   */
  async byBranch(slugs: ReadonlySet<string>): Promise<Map<string, PullRequest | "ambiguous">> {
    const found = new Map<string, PullRequest[]>();
    for (let page = 1; page <= MAX_PULL_PAGES && slugs.size > 0; page++) {
      const pulls = await providerJson(
        this.#ctx(),
        GITHUB,
        {
          method: "GET",
          url: `${this.#base}/pulls?state=all&per_page=100&page=${page}`,
          headers: this.#headers(),
        },
        z.array(pullSchema),
      );
      for (const p of pulls) {
        const slug = branchSlug(p.head.ref);
        if (!slugs.has(slug)) continue;
        found.set(slug, [
          ...(found.get(slug) ?? []),
          { number: p.number, state: p.state, headRef: p.head.ref },
        ]);
      }
      if (pulls.length < 100) break;
    }
    const out = new Map<string, PullRequest | "ambiguous">();
    for (const [slug, pulls] of found) {
      const open = pulls.filter((p) => p.state === "open");
      if (open.length > 1) out.set(slug, "ambiguous");
      else out.set(slug, open[0] ?? (pulls[0] as PullRequest));
    }
    return out;
  }
}
