/**
 * Clerk's Backend API for one instance (`https://api.clerk.com/v1`; the secret key names the
 * instance): the instance's `allowed_origins` (`GET /instance`, `PATCH /instance` writing the
 * array whole, 204, no precondition) and the redirect URLs, each an object of its own
 * (`/redirect_urls`, created by `{ url }`, deleted by id). Errors come as `{ errors: [{ message,
 * long_message, code, meta }] }`; a 429 says how many seconds to wait in `Retry-After`.
 */
import { z } from "zod";
import { factsOf } from "../../../shared/errors";
import {
  type HttpContext,
  type ProviderHttpSpec,
  providerError,
  providerJson,
  providerRequest,
  providerStatus,
  secondsResetHeader,
} from "../http";
import { StaleState } from "../stale-state";
import type { ClerkConfig } from "./config";

export interface ClerkContext extends HttpContext {
  config: ClerkConfig;
}

export const CLERK_API = "https://api.clerk.com/v1";
/** The API version @clerk/backend pins; the request shapes below are that version's. */
export const CLERK_API_VERSION = "2026-05-12";
/** Clerk's largest page (`limit` is 1–500, 10 when not given). */
export const REDIRECT_URL_PAGE = 500;
/** A bound on pages read for one list, so a provider that keeps answering full pages cannot loop us. */
const MAX_PAGES = 100;

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

export const clerkHttp: ProviderHttpSpec = {
  provider: "clerk",
  retryAfterMs: secondsResetHeader("retry-after"),
  describeError(body) {
    if (typeof body !== "object" || body === null) return { message: str(body) };
    const first = (body as { errors?: unknown }).errors;
    const e = Array.isArray(first) ? (first[0] as Record<string, unknown> | undefined) : undefined;
    if (!e || typeof e !== "object") return {};
    return { message: str(e.long_message) ?? str(e.message), code: str(e.code) };
  },
};

const headersOf = (ctx: ClerkContext) => ({
  authorization: `Bearer ${ctx.config.secretKey}`,
  "clerk-api-version": CLERK_API_VERSION,
});

const instanceSchema = z
  .object({ id: z.string().min(1), allowed_origins: z.array(z.string()).nullish() })
  .loose();
export type ClerkInstance = z.infer<typeof instanceSchema>;

/**
 * The instance the key belongs to. It must be the one the connection names: that name is the
 * lease's identity (config.ts), so a key of another instance would be written under the wrong lease.
 */
export async function readInstance(ctx: ClerkContext): Promise<ClerkInstance> {
  const instance = await providerJson(
    ctx,
    clerkHttp,
    { method: "GET", url: `${CLERK_API}/instance`, headers: headersOf(ctx) },
    instanceSchema,
  );
  if (instance.id !== ctx.config.instance) {
    throw providerError(ctx.secrets, {
      provider: "clerk",
      status: 404,
      message: `instance ${ctx.config.instance} not found: the connection's secret key is instance ${instance.id}'s`,
      attempts: 1,
    });
  }
  verified.set(ctx.config, Promise.resolve());
  return instance;
}

/** Connections (a run's resolved config, one object per connection) whose key's instance was checked. */
const verified = new WeakMap<ClerkConfig, Promise<void>>();

/**
 * readInstance's check for calls that do not read the instance (the redirect URLs: a key reaches
 * only its own instance, whatever the connection names). Once per connection context: a key never
 * changes instance, so one round trip per run covers all its URLs. A failed check is not kept.
 */
export function checkInstance(ctx: ClerkContext): Promise<void> {
  let check = verified.get(ctx.config);
  if (!check) {
    check = readInstance(ctx).then(() => {});
    verified.set(ctx.config, check);
    check.catch(() => verified.delete(ctx.config));
  }
  return check;
}

/** `allowed_origins` written whole (204); the last write wins, so only under the instance's lease. */
export async function writeAllowedOrigins(ctx: ClerkContext, origins: string[]): Promise<void> {
  const response = await providerRequest(ctx, clerkHttp, {
    method: "PATCH",
    url: `${CLERK_API}/instance`,
    headers: headersOf(ctx),
    json: { allowed_origins: origins },
  });
  await response.body?.cancel();
}

const redirectUrlSchema = z.object({ id: z.string().min(1), url: z.string() }).loose();
export type ClerkRedirectUrl = z.infer<typeof redirectUrlSchema>;
const pageSchema = z.object({ data: z.array(redirectUrlSchema), total_count: z.number().int().min(0) });

/**
 * Every redirect URL of the instance, 500 a page (the default page of 10 would hide the rest).
 * `maxPages` bounds the pages read (tests lower it rather than hold 50,000 URLs). A list longer
 * than that is refused, never returned cut: a URL on an unread page would be judged absent and
 * created again as a duplicate, or its removal skipped. For the same reason a page that ends the
 * list short of its `total_count` (Clerk's offset paging moved underneath: a URL removed or added
 * between pages) is no end: the list is read once more from the start, and refused if still short.
 */
export async function listRedirectUrls(ctx: ClerkContext, maxPages = MAX_PAGES): Promise<ClerkRedirectUrl[]> {
  const first = await readPages(ctx, maxPages);
  if (first.all.length >= first.total) return first.all;
  const again = await readPages(ctx, maxPages);
  if (again.all.length >= again.total) return again.all;
  // Retriable, unlike the page cap: a list that stops moving reads whole on a later run.
  throw providerError(ctx.secrets, {
    provider: "clerk",
    status: 200,
    message: `the instance holds ${again.total} redirect URLs; a page ended the list after ${again.all.length}, on two reads from the start: the list changed while it was read`,
    attempts: 2,
    retriable: true,
  });
}

/** One read of the list from offset 0 to a page shorter than the limit, with the last `total_count`. */
async function readPages(
  ctx: ClerkContext,
  maxPages: number,
): Promise<{ all: ClerkRedirectUrl[]; total: number }> {
  const all: ClerkRedirectUrl[] = [];
  let total = 0;
  for (let page = 0; page < maxPages; page += 1) {
    const query = new URLSearchParams({
      paginated: "true",
      limit: String(REDIRECT_URL_PAGE),
      offset: String(all.length),
    });
    const { data, total_count } = await providerJson(
      ctx,
      clerkHttp,
      { method: "GET", url: `${CLERK_API}/redirect_urls?${query}`, headers: headersOf(ctx) },
      pageSchema,
    );
    all.push(...data);
    total = total_count;
    if (data.length < REDIRECT_URL_PAGE || all.length >= total_count) return { all, total };
  }
  // Reading on would not end either: the same request fails until URLs are removed.
  throw providerError(ctx.secrets, {
    provider: "clerk",
    status: 200,
    message: `the instance holds ${total} redirect URLs; ${all.length} were read in ${maxPages} pages of ${REDIRECT_URL_PAGE}, the most read for one list`,
    attempts: 1,
    retriable: false,
  });
}

/**
 * Creates the redirect URL. Clerk refuses a URL the instance already holds (422
 * `duplicate_record`). Refused when no earlier attempt of ours may have landed, the URL is someone
 * else's, created since the inspection under the lease: this POST wrote nothing, so the engine reads
 * and decides again (StaleState) and joins it as foreign rather than taking it for its own creation
 * (the group's URLs posted before it stay the run's: PartlySent, engine/write/provider-write.ts).
 * After an attempt that got no answer (or a 5xx), the refusal carries `outcome: "unknown"`
 * (../http/provider-request.ts) and nothing here settles it: a URL found may be that landing or
 * someone else's, and an attempt still on its way may land after any look. So it stands as it is:
 * the run keeps its intent and the lease ends so that the lock-delay covers a late landing: by a
 * quiet release while it is held, else by expiry (docs/design.md, "After the write").
 */
export async function createRedirectUrl(ctx: ClerkContext, url: string): Promise<ClerkRedirectUrl> {
  try {
    return await providerJson(
      ctx,
      clerkHttp,
      { method: "POST", url: `${CLERK_API}/redirect_urls`, headers: headersOf(ctx), json: { url } },
      redirectUrlSchema,
    );
  } catch (err) {
    const status = providerStatus(err);
    if (status === null || status < 400 || status >= 500 || status === 401 || status === 403) throw err;
    if (factsOf(err).outcome === "unknown") throw err;
    const existing = (await listRedirectUrls(ctx)).find((r) => r.url === url);
    if (!existing) throw err;
    throw new StaleState({ provider: "clerk", url, reason: "created by someone else" });
  }
}

/** Deletes one redirect URL by id; one already gone (404) is success. */
export async function deleteRedirectUrl(ctx: ClerkContext, id: string): Promise<void> {
  const response = await providerRequest(ctx, clerkHttp, {
    method: "DELETE",
    url: `${CLERK_API}/redirect_urls/${encodeURIComponent(id)}`,
    headers: headersOf(ctx),
    accept: [404],
  });
  await response.body?.cancel();
}
