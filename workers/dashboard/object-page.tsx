/**
 * GET /dashboard/objects/{hash}: one provider object (an Auth0 application, a bucket's CORS…):
 * its lock, every entry the service knows on it with the scopes that own it, the foreign ones
 * (there before any scope), how full each capped list is (counts only, shown to every caller of
 * the page), and for admins the orphans found at the provider (owned by no scope, not foreign) and
 * the lock's forms: hold, lift, force-release (the same routes and checks as the main page's). A
 * caller bound to one repository sees only its own scopes' entries.
 */
import type { HoldView } from "../../shared/schemas/hold";
import type { LeaseHolder } from "../../shared/schemas/provenance";
import type { Role } from "../auth/caller";
import { FillLevels } from "./fill-levels";
import { formatAgo, formatUtc } from "./format";
import { HoldFacts, HoldForm, LiftForm } from "./hold-forms";
import { HolderText } from "./holder-text";
import { Layout } from "./layout";
import { ReleaseForm } from "./lock-cards";
import type { FillRow } from "./object-fills";

export interface ObjectEntry {
  op: string;
  key: string;
  /** Owners shown, as `repository environment/scope`. */
  owners: string[];
  /** Owners of other repositories, counted only (a bound caller's view). */
  hiddenOwners: number;
  foreign: boolean;
}

export interface ObjectPageProps {
  nonce: string;
  subject: string;
  role: Role;
  hash: string;
  identity: string;
  /** As the caller may see it: another repository's run is `(another repository's run)`, nothing more. */
  lock: {
    held: boolean;
    holder: string | null;
    heldBy: LeaseHolder | null;
    since: number | null;
    waiters: string[];
    hold?: HoldView | undefined;
  };
  /** The CSRF token an admin's forms carry; null for anyone else (no forms). */
  adminCsrf: string | null;
  entries: ObjectEntry[];
  /** Each capped list's fill level, or that it is not measured yet. */
  fills: FillRow[];
  /** Admins: entries at the provider no scope owns; null when not looked up (not an admin). */
  orphans: { op: string; key: string }[] | null;
  problems: string[];
  now: number;
}

export function ObjectPage(props: ObjectPageProps) {
  const { lock } = props;
  return (
    <Layout title={`${props.identity} · Sponson Edge`} nonce={props.nonce}>
      <header class="top">
        <h1>
          <a href="/dashboard">Sponson Edge</a> · object
        </h1>
        <span class="who">
          {props.subject} · {props.role}
        </span>
      </header>
      <main>
        <section id="object" aria-labelledby="object-title" data-identity={props.identity}>
          <h2 id="object-title" class="mono">
            {props.identity}
          </h2>
          <dl class="facts">
            <dt>Lock</dt>
            <dd class="mono lock-state" data-held={String(lock.held)}>
              {lock.held ? (
                <>
                  held by <HolderText run={lock.holder ?? ""} by={lock.heldBy} />
                  {` since ${formatUtc(lock.since ?? 0)} (${formatAgo(lock.since ?? props.now, props.now)})`}
                </>
              ) : (
                "free"
              )}
              {lock.waiters.length > 0 ? ` · ${lock.waiters.length} waiting: ${lock.waiters.join(", ")}` : ""}
            </dd>
            <dt>Key</dt>
            <dd class="mono">_locks/{props.hash}</dd>
          </dl>
          {lock.hold ? <HoldFacts hold={lock.hold} now={props.now} /> : null}
          <LockForms csrf={props.adminCsrf} lockKey={`_locks/${props.hash}`} lock={lock} />
          <h3>Entries</h3>
          {props.entries.length === 0 ? (
            <p class="empty">The service knows no entry on this object.</p>
          ) : null}
          {props.entries.length === 0 ? null : (
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th>Item</th>
                    <th>Op</th>
                    <th>Owned by</th>
                    <th>Foreign</th>
                  </tr>
                </thead>
                <tbody>
                  {props.entries.map((e) => (
                    <tr data-key={e.key} data-foreign={String(e.foreign)}>
                      <td class="mono">{e.key}</td>
                      <td class="mono">{e.op}</td>
                      <td class="mono owners">
                        {e.owners.join(", ") ||
                          (e.hiddenOwners === 0 ? <span class="muted">nobody</span> : "")}
                        {e.hiddenOwners > 0 ? (
                          <span class="muted"> {e.hiddenOwners} in other repositories</span>
                        ) : null}
                      </td>
                      <td>{e.foreign ? "foreign (there before any scope)" : "—"}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <FillLevels rows={props.fills} now={props.now} />
          <h3>Orphans</h3>
          {props.orphans === null ? (
            <p class="muted">Admins see the entries at the provider that no scope owns (GET /v1/orphans).</p>
          ) : props.orphans.length === 0 ? (
            <p class="empty">No orphan: every entry at the provider is owned or foreign.</p>
          ) : (
            <ul class="orphans">
              {props.orphans.map((o) => (
                <li data-orphan={o.key}>
                  <span class="mono">{o.key}</span> <span class="muted">({o.op})</span>
                </li>
              ))}
            </ul>
          )}
          {props.problems.map((p) => (
            <p class="notice bad">{p}</p>
          ))}
        </section>
      </main>
    </Layout>
  );
}

/** An admin's forms for the object's lock: force-release while a run holds it, hold or lift. */
function LockForms(props: { csrf: string | null; lockKey: string; lock: ObjectPageProps["lock"] }) {
  const { csrf, lockKey, lock } = props;
  if (csrf === null) return null;
  return (
    <div class="lock-forms" data-lock={lockKey}>
      {lock.held ? <ReleaseForm lockKey={lockKey} csrf={csrf} /> : null}
      {lock.hold ? <LiftForm lockKey={lockKey} csrf={csrf} /> : <HoldForm lockKey={lockKey} csrf={csrf} />}
    </div>
  );
}
