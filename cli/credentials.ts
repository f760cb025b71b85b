/**
 * The token the CLI sends (docs/design.md, "Security model"; docs/cli.md, "Credentials"): SPONSON_TOKEN when
 * set; otherwise, inside a GitHub Actions job with `permissions: id-token: write`, the job's own OIDC token,
 * fetched from the runner's token endpoint with the configured audience. A token is never printed by
 * accident: errors name the source, not the value, and a fetched token is masked in the job's log.
 */
import { z } from "zod";
import { CliError } from "./cli-error";

export type Env = Record<string, string | undefined>;

export interface Credentials {
  token: string;
  source: "SPONSON_TOKEN" | "github-oidc";
}

/** GitHub's answer: `{ "value": "<jwt>" }` (docs: "Requesting the JWT using environment variables"). */
const oidcAnswerSchema = z.object({ value: z.string().min(1) });

export function inGithubActions(env: Env): boolean {
  return Boolean(env.ACTIONS_ID_TOKEN_REQUEST_URL && env.ACTIONS_ID_TOKEN_REQUEST_TOKEN);
}

/** The audience asked for: --audience, SPONSON_AUDIENCE, else the service URL's origin. */
export function audienceFor(env: Env, url: string | undefined, flag: string | undefined): string {
  const audience = flag ?? env.SPONSON_AUDIENCE;
  if (audience) return audience;
  if (url) return new URL(url).origin;
  throw new CliError(2, "no audience: pass --audience, set SPONSON_AUDIENCE or SPONSON_URL");
}

export async function resolveCredentials(
  env: Env,
  audience: () => string,
  log: (line: string) => void,
  fetchImpl: typeof fetch = globalThis.fetch,
): Promise<Credentials> {
  if (env.SPONSON_TOKEN) return { token: env.SPONSON_TOKEN.trim(), source: "SPONSON_TOKEN" };
  if (inGithubActions(env)) {
    const token = await fetchGithubOidcToken(env, audience(), fetchImpl);
    // Workflow command: the runner replaces the value with *** wherever it shows up later.
    if (env.GITHUB_ACTIONS === "true") log(`::add-mask::${token}`);
    return { token, source: "github-oidc" };
  }
  throw new CliError(
    2,
    "no credentials: set SPONSON_TOKEN, or run in GitHub Actions with `permissions: id-token: write`",
  );
}

export async function fetchGithubOidcToken(
  env: Env,
  audience: string,
  fetchImpl: typeof fetch,
): Promise<string> {
  const base = env.ACTIONS_ID_TOKEN_REQUEST_URL ?? "";
  const requestToken = env.ACTIONS_ID_TOKEN_REQUEST_TOKEN ?? "";
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new CliError(2, "ACTIONS_ID_TOKEN_REQUEST_URL is not a URL");
  }
  url.searchParams.set("audience", audience);
  let res: Response;
  try {
    res = await fetchImpl(url, {
      headers: { authorization: `bearer ${requestToken}`, accept: "application/json; api-version=2.0" },
    });
  } catch (err) {
    throw new CliError(2, `cannot reach the GitHub OIDC token endpoint: ${(err as Error).message}`);
  }
  if (!res.ok) {
    throw new CliError(
      2,
      `the GitHub OIDC token endpoint answered ${res.status}; does the job have \`permissions: id-token: write\`?`,
    );
  }
  const parsed = oidcAnswerSchema.safeParse(await res.json().catch(() => undefined));
  if (!parsed.success) throw new CliError(2, "the GitHub OIDC token endpoint did not answer { value }");
  return parsed.data.value;
}
