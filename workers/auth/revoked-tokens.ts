/**
 * The service-token deny list (docs/security.md, "Service tokens"): an admin names a token's `jti`,
 * and from then on every request carrying it is refused 401 `revoked`. One R2 object per revoked id
 * (`auth/revoked-tokens/<jti>.json`, docs/storage.md), so two admins revoking at once never race;
 * never deleted by the service.
 *
 * Each isolate remembers for REVOCATION_CHECK_TTL_MS that an id was not revoked, so a busy token
 * costs one R2 read per isolate per interval rather than one per request: a revocation takes effect
 * at once in the isolate that recorded it and within that interval everywhere else.
 */
import { z } from "zod";
import { SponsonError } from "../../shared/errors";
import type { Caller } from "./caller";

export const REVOKED_TOKENS_PREFIX = "auth/revoked-tokens/";
export const REVOCATION_CHECK_TTL_MS = 30_000;

/**
 * A token id: also the deny list's R2 key (URI-encoded), so a lone UTF-16 surrogate, which no key
 * can spell, is refused here rather than failing the encoding later.
 */
export const jtiSchema = z
  .string()
  .min(1)
  .max(200)
  .refine((jti) => !/\p{Cs}/u.test(jti), "a token id is well-formed Unicode (no lone surrogate)");

export const revokeBodySchema = z.strictObject({
  jti: jtiSchema,
  reason: z.string().trim().min(1).max(500),
});

export const revokedTokenSchema = revokeBodySchema.extend({
  actor: z.string(),
  /** ms since the epoch. */
  at: z.number().int(),
});
export type RevokedToken = z.infer<typeof revokedTokenSchema>;

const notRevokedAt = new Map<string, number>();
const MAX_REMEMBERED = 10_000;

const keyOf = (jti: string) => `${REVOKED_TOKENS_PREFIX}${encodeURIComponent(jti)}.json`;

/**
 * Records the revocation unless the id is already revoked, and answers the record that stands: the
 * first revoker's, so a second admin (or a holder of a leaked admin token) cannot rewrite who
 * revoked it and why (docs/security.md, "Service tokens"). Create-only put: two at once never race.
 */
export async function revokeToken(bucket: R2Bucket, record: RevokedToken): Promise<RevokedToken> {
  const key = keyOf(record.jti);
  const created = await bucket.put(key, JSON.stringify(record), {
    httpMetadata: { contentType: "application/json" },
    onlyIf: { etagDoesNotMatch: "*" },
  });
  notRevokedAt.delete(record.jti);
  if (created !== null) return record;
  const existing = await bucket.get(key);
  const parsed = revokedTokenSchema.safeParse(existing ? await existing.json().catch(() => null) : null);
  return parsed.success ? parsed.data : record;
}

export async function listRevokedTokens(bucket: R2Bucket): Promise<RevokedToken[]> {
  const records: RevokedToken[] = [];
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix: REVOKED_TOKENS_PREFIX, ...(cursor ? { cursor } : {}) });
    for (const object of page.objects) {
      const body = await bucket.get(object.key);
      const parsed = revokedTokenSchema.safeParse(body ? await body.json() : null);
      if (parsed.success) records.push(parsed.data);
    }
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor !== undefined);
  return records.sort((a, b) => b.at - a.at);
}

/** Refuses a service token whose `jti` is on the deny list; `now` is passed in. */
export async function assertNotRevoked(bucket: R2Bucket, caller: Caller, now: number): Promise<void> {
  if (caller.kind !== "service" || caller.tokenId === undefined) return;
  const jti = caller.tokenId;
  const checked = notRevokedAt.get(jti);
  if (checked !== undefined && now - checked < REVOCATION_CHECK_TTL_MS) return;
  if ((await bucket.head(keyOf(jti))) !== null) {
    throw new SponsonError("UNAUTHENTICATED", "the token has been revoked", { reason: "revoked" });
  }
  if (notRevokedAt.size >= MAX_REMEMBERED) notRevokedAt.clear();
  notRevokedAt.set(jti, now);
}

/**
 * Which of these ids are revoked, read from the deny list itself (no per-isolate memory): the lock
 * feed asks once per broadcast for its sockets' distinct ids, so a revocation closes a socket at the
 * next event wherever the feed runs (docs/security.md, "The lock feed").
 */
export async function revokedAmong(bucket: R2Bucket, jtis: Iterable<string>): Promise<Set<string>> {
  const ids = [...new Set(jtis)];
  const heads = await Promise.all(ids.map((jti) => bucket.head(keyOf(jti))));
  return new Set(ids.filter((_, i) => heads[i] !== null));
}
