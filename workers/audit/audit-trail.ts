/**
 * The admin audit trail in R2 (docs/storage.md, "Audit trail"): every force-release, every orphan
 * removal and every destroy the sweep re-sent, with who, why, and what was affected (force-releases
 * and orphan removals are written as an intent before they act: ./audit-intent.ts). The lock's own history keeps only its last 50
 * transitions (renewals push a force-release out within minutes); these records are never deleted
 * by the service, so they outlive any retention an operator sets of 90 days or more.
 */
import { z } from "zod";
import type { Env } from "../../shared/env";
import { evictionAuditSchema } from "../../shared/schemas/eviction";
import { HOLD_AUDIT_PREFIX, type HoldAudit, holdAuditKey, holdAuditSchema } from "../../shared/schemas/hold";
import { REVOKED_TOKENS_PREFIX, revokedTokenSchema } from "../auth/revoked-tokens";
import { ORPHAN_AUDIT_PREFIX } from "../lock-views/owned-objects";
import { PLATFORM_AUDIT_PREFIX, platformEventAuditSchema } from "../platforms/platform-audit";
import { WEBHOOK_AUDIT_PREFIX } from "../webhooks/future-revision";
import { ADOPTION_AUDIT_PREFIX, adoptionAuditSchema } from "./adoption-audit";
import { auditLifecycleSchema } from "./audit-intent";
import { EVICTION_AUDIT_PREFIX } from "./evictions";
import { orphanRemovalAuditSchema } from "./orphan-audit";
import { SET_ASIDE_PREFIX, setAsideLetterSchema } from "./set-aside-letters";
import { TOKEN_AUDIT_PREFIX, tokenMintAuditSchema, tokenMintEntry } from "./token-mints";

export const FORCE_RELEASE_AUDIT_PREFIX = "audit/force-releases/";
export const AUDIT_LISTED_MAX = 1000;

export const forceReleaseAuditSchema = z
  .object({
    key: z.string(),
    actor: z.string(),
    reason: z.string(),
    /**
     * The run that held the lock, and its fencing token (null when nothing was held); absent while
     * the outcome is not known (an intent, a failed or unknown completion) or could not be read back.
     */
    holder: z.string().nullable().optional(),
    token: z.number().int().nullable().optional(),
    /** Absent until the outcome is known (`status: "done"`). */
    released: z.boolean().optional(),
    /** The lock object's clock when it decided (ms); the intent's own time while `started`. */
    at: z.number().int(),
  })
  .extend(auditLifecycleSchema.shape);
export type ForceReleaseAudit = z.input<typeof forceReleaseAuditSchema>;

/**
 * A delivery the webhook receiver refused and recorded (workers/webhooks/future-revision.ts): its
 * signature held, so it is GitHub's or made with the secret, which an admin wants to know.
 */
export const webhookRefusedSchema = z.object({
  delivery: z.string(),
  rule: z.string(),
  repository: z.object({ id: z.number().int(), name: z.string() }),
  scope: z.string(),
  revision: z.number().int(),
  /** The receiver's clock when it refused (ms). */
  at: z.number().int(),
});

const storedFutureRevisionSchema = z.object({
  kind: z.literal("webhook-future-revision"),
  delivery: z.string(),
  repository: z.object({ id: z.number().int(), name: z.string() }),
  scope: z.string(),
  revision: z.number().int(),
  receivedAt: z.number().int(),
});

export const DESTROY_RESEND_AUDIT_PREFIX = "audit/destroy-resends/";

/** The sweep re-sent a closed scope's destroys (docs/design.md, "Webhooks and the sweep"). */
export const destroyResendAuditSchema = z.object({
  repositoryId: z.number().int(),
  scope: z.string(),
  /** The close in force (its revision and delivery) whose destroys were sent again. */
  revision: z.number().int(),
  deliveryId: z.string(),
  /** 1 for the first re-send of this close. */
  attempt: z.number().int().positive(),
  environments: z.array(z.string()),
  actor: z.literal("sweep"),
  reason: z.string(),
  /** The sweep's scheduled time (ms). */
  at: z.number().int(),
});
export type DestroyResendAudit = z.infer<typeof destroyResendAuditSchema>;

export const auditEntrySchema = z.discriminatedUnion("kind", [
  forceReleaseAuditSchema.extend({ kind: z.literal("force-release") }),
  orphanRemovalAuditSchema.extend({ kind: z.literal("orphan-removal") }),
  // Holds set and lifted by an admin (the route records them) and expired (the lock records them).
  holdAuditSchema.extend({ kind: z.literal("hold") }),
  // Tokens minted by POST /v1/tokens (workers/audit/token-mints.ts).
  tokenMintAuditSchema.extend({ kind: z.literal("token-mint") }),
  // Token revocations (workers/auth/revoked-tokens.ts) and refused webhook deliveries.
  revokedTokenSchema.extend({ kind: z.literal("token-revocation") }),
  webhookRefusedSchema.extend({ kind: z.literal("webhook-refused") }),
  destroyResendAuditSchema.extend({ kind: z.literal("destroy-resend") }),
  // Stale scopes' entries a write past a list's cap removed (workers/audit/evictions.ts).
  evictionAuditSchema.extend({ kind: z.literal("eviction") }),
  // Parked destroys the sweep will never re-drive, moved here with their reason (./set-aside-letters.ts).
  setAsideLetterSchema.extend({ kind: z.literal("dead-letter-set-aside") }),
  // Entries an admin adopted into pull requests' scopes (workers/audit/adoption-audit.ts).
  adoptionAuditSchema.extend({ kind: z.literal("adoption") }),
  // Signed platform events that registered nothing, or whose apply failed for good (workers/platforms/).
  platformEventAuditSchema.extend({ kind: z.literal("platform-event") }),
]);
export type AuditEntry = z.infer<typeof auditEntrySchema>;

/** Where one force-release's intent and completion are kept: its start time first, so keys list in time order. */
export function forceReleaseAuditKey(startedAt: number, id: string): string {
  return `${FORCE_RELEASE_AUDIT_PREFIX}${startedAt}-${id}.json`;
}

export async function recordHold(env: Env, record: HoldAudit): Promise<void> {
  await env.RECEIPTS.put(holdAuditKey(record.at), JSON.stringify(record), {
    httpMetadata: { contentType: "application/json" },
  });
}

export async function recordDestroyResend(env: Env, record: DestroyResendAudit): Promise<void> {
  // One key per close and attempt: a sweep that records the same re-send twice overwrites it.
  const key = `${DESTROY_RESEND_AUDIT_PREFIX}${record.at}-${record.repositoryId}-${record.deliveryId}-${record.attempt}.json`;
  await env.RECEIPTS.put(key, JSON.stringify(record), { httpMetadata: { contentType: "application/json" } });
}

/**
 * Where each kind of record lives and how a stored object reads as an entry (null: not one). Keys
 * start with the time in ms (13 digits until 2286), so listing the keys alone orders them, except
 * the deny list's, which is keyed by token id (`timeKeyed: false`). The listing below and the
 * stream (./audit-stream.ts) read the trail through this one table.
 */
export interface AuditSource {
  prefix: string;
  timeKeyed: boolean;
  parse(json: unknown): AuditEntry | null;
}

function source<S extends z.ZodType, K extends AuditEntry["kind"]>(
  prefix: string,
  kind: K,
  schema: S,
): AuditSource {
  return {
    prefix,
    timeKeyed: true,
    parse: (json) => {
      const parsed = schema.safeParse(json);
      return parsed.success ? ({ kind, ...(parsed.data as object) } as AuditEntry) : null;
    },
  };
}

export const AUDIT_SOURCES: readonly AuditSource[] = [
  source(FORCE_RELEASE_AUDIT_PREFIX, "force-release", forceReleaseAuditSchema),
  source(ORPHAN_AUDIT_PREFIX, "orphan-removal", orphanRemovalAuditSchema),
  source(HOLD_AUDIT_PREFIX, "hold", holdAuditSchema),
  {
    prefix: TOKEN_AUDIT_PREFIX,
    timeKeyed: true,
    parse: (json) => {
      const entry = tokenMintEntry(json);
      return entry === null ? null : { kind: "token-mint", ...entry };
    },
  },
  {
    prefix: REVOKED_TOKENS_PREFIX,
    timeKeyed: false,
    parse: (json) => {
      const parsed = revokedTokenSchema.safeParse(json);
      return parsed.success ? { kind: "token-revocation", ...parsed.data } : null;
    },
  },
  {
    prefix: WEBHOOK_AUDIT_PREFIX,
    timeKeyed: true,
    parse: (json) => {
      const parsed = storedFutureRevisionSchema.safeParse(json);
      if (!parsed.success) return null;
      const { receivedAt, kind: _stored, ...rest } = parsed.data;
      return { kind: "webhook-refused", rule: "webhook.future-revision", ...rest, at: receivedAt };
    },
  },
  source(DESTROY_RESEND_AUDIT_PREFIX, "destroy-resend", destroyResendAuditSchema),
  source(EVICTION_AUDIT_PREFIX, "eviction", evictionAuditSchema),
  // Parked destroys the sweep will never re-drive, moved here with their reason (./set-aside-letters.ts).
  source(SET_ASIDE_PREFIX, "dead-letter-set-aside", setAsideLetterSchema),
  // Entries an admin adopted into pull requests' scopes (./adoption-audit.ts).
  source(ADOPTION_AUDIT_PREFIX, "adoption", adoptionAuditSchema),
  // Signed platform events that registered nothing (../platforms/platform-audit.ts).
  source(PLATFORM_AUDIT_PREFIX, "platform-event", platformEventAuditSchema),
];

/** Every key under `prefix`, with when R2 says it was last written (ms). */
export async function listKeys(
  bucket: R2Bucket,
  prefix: string,
): Promise<Array<{ key: string; uploaded: number }>> {
  const keys: Array<{ key: string; uploaded: number }> = [];
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix, ...(cursor ? { cursor } : {}) });
    keys.push(...page.objects.map((o) => ({ key: o.key, uploaded: o.uploaded.getTime() })));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor !== undefined);
  return keys;
}

/** The stored object at `key` read as `from`'s entry; null when absent or not one. */
export async function readEntry(
  bucket: R2Bucket,
  key: string,
  from: AuditSource,
): Promise<AuditEntry | null> {
  const body = await bucket.get(key);
  return from.parse(body ? await body.json().catch(() => null) : null);
}

/** The newest `limit` records of one source (all of an untimed one); only the bodies shown are read. */
async function readNewest(env: Env, from: AuditSource, limit: number): Promise<AuditEntry[]> {
  const keys = (await listKeys(env.RECEIPTS, from.prefix)).map((k) => k.key);
  const newest = from.timeKeyed ? keys.sort().reverse().slice(0, limit) : keys;
  const entries = await Promise.all(newest.map((key) => readEntry(env.RECEIPTS, key, from)));
  return entries.filter((e): e is AuditEntry => e !== null);
}

/**
 * Force-releases, orphan removals, holds, token mints and revocations, refused webhooks, the
 * sweep's destroy re-sends, evictions, dead letters set aside and adoptions, newest first; at
 * most `limit`.
 */
export async function listAudit(env: Env, limit = AUDIT_LISTED_MAX): Promise<AuditEntry[]> {
  const all = await Promise.all(AUDIT_SOURCES.map((from) => readNewest(env, from, limit)));
  return all
    .flat()
    .sort((a, b) => b.at - a.at)
    .slice(0, limit);
}
