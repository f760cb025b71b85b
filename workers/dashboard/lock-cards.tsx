/** Held locks as cards: who holds what, since when, the countdown, the queue, holds, and (admins) release and hold. */
import { formatAgo, formatDuration, formatUtc } from "./format";
import { HoldFacts, HoldForm, LiftForm } from "./hold-forms";
import { HolderText } from "./holder-text";
import type { LockView } from "./snapshot";

export interface LockCardsProps {
  locks: LockView[];
  now: number;
  /** Present only for admins: the session's CSRF token for the force-release forms. */
  releaseCsrf: string | null;
}

export function LockCards({ locks, now, releaseCsrf }: LockCardsProps) {
  return (
    <section id="locks" aria-labelledby="locks-title">
      <h2 id="locks-title">
        Held locks <span class="count">{locks.length}</span>
      </h2>
      {releaseCsrf === null ? null : <HoldForm csrf={releaseCsrf} />}
      {locks.length === 0 ? (
        <p class="empty">No locks are held.</p>
      ) : (
        <div class="grid">
          {locks.map((lock) => (
            <LockCard lock={lock} now={now} releaseCsrf={releaseCsrf} />
          ))}
        </div>
      )}
    </section>
  );
}

function LockCard({ lock, now, releaseCsrf }: { lock: LockView; now: number; releaseCsrf: string | null }) {
  return (
    <article class="card lock" data-key={lock.key}>
      <h3>
        <span class={`badge ${lock.kind}`}>{lock.kind}</span>
        <span class="mono">{lock.key}</span>
      </h3>
      {lock.hold ? <HoldFacts hold={lock.hold} now={now} /> : null}
      <dl class="facts">
        {lock.repository ? (
          <>
            <dt>repository</dt>
            <dd class="mono repository">{lock.repository.name}</dd>
          </>
        ) : null}
        {lock.identity ? (
          <>
            <dt>object</dt>
            <dd class="mono identity">{lock.identity}</dd>
          </>
        ) : null}
        <dt>holder run</dt>
        <dd class="holder-run">
          <HolderText run={lock.holder} by={lock.heldBy} />
        </dd>
        {lock.since === null || lock.expiresAt === null ? null : (
          <>
            <dt>since</dt>
            <dd title={formatUtc(lock.since)}>
              <span data-since={lock.since}>{formatAgo(lock.since, now)}</span>
            </dd>
            <dt>expires in</dt>
            <dd title={formatUtc(lock.expiresAt)}>
              <span class="countdown" data-expires-at={lock.expiresAt}>
                {formatDuration(lock.expiresAt - now)}
              </span>
            </dd>
          </>
        )}
        <dt>waiters</dt>
        <dd class="waiters">
          {lock.waiters.length === 0 ? (
            <span class="muted">none</span>
          ) : (
            <ul class="waiters">
              {lock.waiters.map((w) => (
                <li>
                  <span class="waiter">
                    <HolderText run={w.holder} by={w.by} />
                  </span>{" "}
                  <span class="muted">
                    waiting <span data-since={w.since}>{formatAgo(w.since, now)}</span>
                  </span>
                </li>
              ))}
            </ul>
          )}
        </dd>
      </dl>
      {releaseCsrf === null || lock.holder === null ? null : (
        <ReleaseForm lockKey={lock.key} csrf={releaseCsrf} />
      )}
      {releaseCsrf === null ? null : lock.hold ? (
        <LiftForm lockKey={lock.key} csrf={releaseCsrf} />
      ) : (
        <HoldForm lockKey={lock.key} csrf={releaseCsrf} />
      )}
    </article>
  );
}

/** Force-release needs a reason and an explicit confirmation; both are checked again by the server. */
export function ReleaseForm({ lockKey, csrf }: { lockKey: string; csrf: string }) {
  return (
    <details class="release" data-lock={lockKey}>
      <summary>Force release…</summary>
      <form method="post" action="/dashboard/locks/release">
        <input type="hidden" name="csrf" value={csrf} />
        <input type="hidden" name="key" value={lockKey} />
        <label>
          Reason (recorded in the lock's history)
          <textarea name="reason" required maxlength={500} rows={2} />
        </label>
        <label class="check">
          <input type="checkbox" name="confirm" value="yes" required />
          <span>I understand the holder loses its lease and the next waiter is granted the lock.</span>
        </label>
        <button class="danger" type="submit">
          Force release
        </button>
      </form>
    </details>
  );
}
