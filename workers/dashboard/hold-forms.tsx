/**
 * Holds on the dashboard (admins only, like POST and DELETE /v1/locks/{key}/hold): what a card
 * says of a hold in force, and the forms that set and lift one. The server checks every field
 * again (workers/routes/dashboard-lock-forms.ts), with the same-origin and CSRF checks of every POST.
 */
import type { HoldView } from "../../shared/schemas/hold";
import { formatDuration, formatUtc } from "./format";

/** The longest hold the form offers, in minutes (30 days, the API's bound). */
export const MAX_HOLD_MINUTES = 43_200;

export function HoldFacts({ hold, now }: { hold: HoldView; now: number }) {
  return (
    <p class="hold" data-hold-until={hold.until}>
      <strong>On hold</strong> until <span title={formatUtc(hold.until)}>{formatUtc(hold.until)}</span> (
      {formatDuration(hold.until - now)} left), set by <span class="mono">{hold.by}</span>: {hold.reason}.
      Runs that need this lock are refused until then.
    </p>
  );
}

/**
 * Sets a hold: on a card or an object's page its key is fixed; above the cards the admin types a
 * key or an object's identity (a free lock is not listed), resolved as the API resolves it.
 */
export function HoldForm({ csrf, lockKey }: { csrf: string; lockKey?: string }) {
  return (
    <details class="hold-form">
      <summary>{lockKey ? "Hold…" : "Hold a lock…"}</summary>
      <form method="post" action="/dashboard/locks/hold">
        <input type="hidden" name="csrf" value={csrf} />
        {lockKey ? (
          <input type="hidden" name="key" value={lockKey} />
        ) : (
          <label>
            Lock key (scope:&lt;repository id&gt;/&lt;environment&gt;/&lt;scope&gt; or _locks/&lt;hash&gt;) or
            the object's identity (auth0:&lt;tenant&gt;:client:&lt;client id&gt;)
            <input name="key" required maxlength={520} />
          </label>
        )}
        <label>
          Reason (shown to every run the hold refuses)
          <textarea name="reason" required maxlength={500} rows={2} />
        </label>
        <label>
          For how many minutes
          <input name="ttlMinutes" type="number" required min={1} max={MAX_HOLD_MINUTES} value="60" />
        </label>
        <button class="danger" type="submit">
          Hold
        </button>
      </form>
    </details>
  );
}

export function LiftForm({ csrf, lockKey }: { csrf: string; lockKey: string }) {
  return (
    <form class="lift" method="post" action="/dashboard/locks/unhold">
      <input type="hidden" name="csrf" value={csrf} />
      <input type="hidden" name="key" value={lockKey} />
      <button type="submit">Lift hold</button>
    </form>
  );
}
