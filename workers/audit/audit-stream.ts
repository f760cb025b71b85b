/**
 * The audit trail as a stream (docs/operations.md, "The audit stream"): every record in the order
 * it was written, after a cursor, so a SIEM can tail it. A record's place is when R2 last wrote
 * it (`uploaded`) and its key: a force-release's intent and then its completion (one key, written
 * twice) come twice, the second after the first, each with its own cursor.
 *
 * A write is listed only once it is `AUDIT_SETTLE_MS` old: a write in flight while a page is read
 * may become visible with a time before the page's last one, and a cursor already past it would
 * skip it for good. Holding back the newest seconds makes every record's place final before any
 * cursor can pass it. Each page lists every key of the trail (as the newest-first listing does)
 * and reads only the bodies it answers. Pure apart from the bucket; `now` is passed in.
 */
import { z } from "zod";
import { SponsonError } from "../../shared/errors";
import { parseLockKey } from "../../shared/lock-keys";
import { type RepositoryRef, sameRepositoryName } from "../../shared/schemas/repository";
import { AUDIT_SOURCES, type AuditEntry, type AuditSource, listKeys, readEntry } from "./audit-trail";

export const AUDIT_SETTLE_MS = 5_000;
export const AUDIT_PAGE_MAX = 500;
export const AUDIT_PAGE_DEFAULT = 100;

/** Where a record is in the stream: R2's time of its last write (ms), then its key. */
export interface AuditPosition {
  at: number;
  key: string;
}

const positionSchema = z.strictObject({ at: z.number().int().nonnegative(), key: z.string().max(1024) });

/** Opaque to callers: base64url of the position. */
export function encodeCursor(p: AuditPosition): string {
  const bytes = new TextEncoder().encode(JSON.stringify({ at: p.at, key: p.key }));
  return btoa(String.fromCharCode(...bytes))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");
}

/** The position a cursor names; "" is the start of the trail. Anything else refuses 400. */
export function decodeCursor(cursor: string): AuditPosition | null {
  if (cursor === "") return null;
  try {
    const binary = atob(cursor.replaceAll("-", "+").replaceAll("_", "/"));
    const json = new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
    const parsed = positionSchema.safeParse(JSON.parse(json));
    if (parsed.success) return parsed.data;
  } catch {
    // answered below
  }
  throw new SponsonError(
    "VALIDATION",
    "cursor is not one this service gave out (from Sponson-Cursor or a record's cursor)",
    {
      rule: "audit.cursor",
    },
  );
}

const after = (a: AuditPosition, b: AuditPosition | null) =>
  b === null || a.at > b.at || (a.at === b.at && a.key > b.key);

/** One record as the stream answers it: the entry, its R2 key (stable: its id), when it was written, and where to resume. */
export type StreamedEntry = AuditEntry & { record: string; writtenAt: number; cursor: string };

export interface AuditPage {
  entries: StreamedEntry[];
  /** Where the next page starts: after the last record examined (kept or not), else the given cursor. */
  cursor: string;
  /** More settled records follow. */
  more: boolean;
}

export interface PageRequest {
  after: AuditPosition | null;
  limit: number;
  now: number;
  /** Which records the caller may see (a repository-bound caller's own); all when absent. */
  keep?: (entry: AuditEntry) => boolean;
}

/** Every settled record's place after `from`, in stream order. */
async function settledAfter(bucket: R2Bucket, from: AuditPosition | null, now: number) {
  const settled = now - AUDIT_SETTLE_MS;
  const listed = await Promise.all(
    AUDIT_SOURCES.map(async (source) =>
      (await listKeys(bucket, source.prefix)).map((k) => ({ ...k, source })),
    ),
  );
  return listed
    .flat()
    .map(({ key, uploaded, source }) => ({ position: { at: uploaded, key }, from: source }))
    .filter(({ position }) => position.at <= settled && after(position, from))
    .sort((a, b) => a.position.at - b.position.at || (a.position.key < b.position.key ? -1 : 1));
}

/** The place of the newest settled record: a stream started here skips all written so far. */
export async function settledEnd(bucket: R2Bucket, now: number): Promise<AuditPosition | null> {
  return (await settledAfter(bucket, null, now)).at(-1)?.position ?? null;
}

export async function auditPage(bucket: R2Bucket, req: PageRequest): Promise<AuditPage> {
  const ready = await settledAfter(bucket, req.after, req.now);
  const page = ready.slice(0, req.limit);
  const read = await Promise.all(page.map(({ position, from }) => readOne(bucket, position, from)));
  const entries = read.filter((e): e is StreamedEntry => e !== null && (req.keep?.(e) ?? true));
  const last = page.at(-1)?.position;
  return {
    entries,
    cursor: last ? encodeCursor(last) : req.after ? encodeCursor(req.after) : "",
    more: ready.length > page.length,
  };
}

async function readOne(
  bucket: R2Bucket,
  position: AuditPosition,
  from: AuditSource,
): Promise<StreamedEntry | null> {
  const entry = await readEntry(bucket, position.key, from);
  if (entry === null) return null;
  return { ...entry, record: position.key, writtenAt: position.at, cursor: encodeCursor(position) };
}

/**
 * Whether a record is the repository's (docs/security.md, "Repository isolation"): a hold or
 * force-release of one of its scope locks, a token minted for it, a refused delivery, a destroy
 * re-send, an eviction or an adoption into its scopes, a parked destroy of its scope set aside.
 * Records about shared objects (parent locks, orphans) and token revocations belong to no one
 * repository and are the service's admins' alone.
 */
export function belongsTo(entry: AuditEntry, repository: RepositoryRef): boolean {
  switch (entry.kind) {
    case "force-release":
    case "hold": {
      const lock = parseLockKey(entry.key);
      return lock?.kind === "scope" && lock.repositoryId === repository.id;
    }
    case "token-mint":
      return entry.repository !== undefined && sameRepositoryName(entry.repository, repository.name);
    case "webhook-refused":
    case "eviction":
    case "adoption":
    case "platform-event":
      return entry.repository.id === repository.id;
    case "dead-letter-set-aside":
      return entry.repositoryId === repository.id;
    case "destroy-resend":
      return entry.repositoryId === repository.id;
    case "orphan-removal":
    case "token-revocation":
      return false;
  }
}
