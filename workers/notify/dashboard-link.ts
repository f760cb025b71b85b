/**
 * The dashboard page a notification is about (docs/operations.md, "Notifications"), on the
 * service's public URL (SPONSON_PUBLIC_URL): a provider object's page for a parent lock or an
 * identity, the run's page for a run, the scope's listing for a scope lock or a scope. Null when
 * the URL is not configured or the notice names none of them.
 */
import { parseLockKey } from "../../shared/lock-keys";
import { objectHash } from "../dashboard/object-hash";
import type { Notification } from "./notification";

const text = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined);

function scopePage(base: string, environment: string | undefined, scope: string): string {
  const query = new URLSearchParams({ ...(environment ? { environment } : {}), scope });
  return `${base}/dashboard?${query}`;
}

export async function dashboardLink(publicUrl: string | null, n: Notification): Promise<string | null> {
  if (publicUrl === null || !URL.canParse(publicUrl)) return null;
  const url = new URL(publicUrl);
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  const base = `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
  const s = n.subject;
  const lock = text(s.lock) ?? text(s.key);
  const parsed = lock === undefined ? null : parseLockKey(lock);
  if (parsed?.kind === "parent") return `${base}/dashboard/objects/${parsed.hash}`;
  if (parsed?.kind === "scope") return scopePage(base, parsed.environment, parsed.scope);
  const identity = text(s.identity) ?? text(s.parent);
  if (identity !== undefined) return `${base}/dashboard/objects/${await objectHash(identity)}`;
  const run = text(s.runId) ?? text(s.run);
  const environment = text(s.environment);
  const scope = text(s.scope);
  if (run !== undefined && environment !== undefined && scope !== undefined) {
    return `${base}/dashboard/runs/${encodeURIComponent(run)}?${new URLSearchParams({ environment, scope })}`;
  }
  if (scope !== undefined) return scopePage(base, environment, scope);
  return null;
}
