/**
 * The refusal of an apply to a closed scope. A closed scope stays closed until its pull request is
 * reopened (the `reopened` webhook), so the same request can never succeed by being sent again:
 * unlike the code's other causes, this one is not retriable, and the message says what to do.
 */
import { SponsonError } from "../../../shared/errors";

export function scopeClosedError(scope: string, state: { status: "closed"; revision: number }): SponsonError {
  return new SponsonError(
    "CONCURRENT_MODIFICATION",
    `scope ${scope} is closed: its pull request was closed and its entries are destroyed. ` +
      "Reopen the pull request to reopen the scope, then apply again; retrying as is cannot succeed",
    { scope, scopeStatus: state.status, revision: state.revision },
    { retriable: false },
  );
}
