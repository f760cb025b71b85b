/**
 * `unlock <key> --reason`: an admin's force-release (docs/api.md, "Routes": DELETE
 * /v1/locks/{key}); `<key>` may be a provider object's identity, as for `hold`.
 */
import { CliError, type ExitCode } from "../cli-error";
import { clientFor, type Invocation, stringFlag } from "../context";
import { lockName } from "./hold";

export async function unlockCommand(inv: Invocation): Promise<ExitCode> {
  const key = inv.positionals[0];
  const reason = stringFlag(inv, "reason")?.trim();
  if (!key)
    throw new CliError(2, "which lock? Usage: sponson unlock <key> --reason <text> (see `sponson locks`)");
  if (!reason) throw new CliError(2, "--reason is required: it is kept in the lock's history");
  const client = await clientFor(inv);
  const outcome = await client.forceRelease(key, reason);
  if (inv.flags.json === true) {
    inv.io.stdout.write(`${JSON.stringify(outcome, null, 2)}\n`);
  } else {
    const name = lockName(key, outcome.lock);
    const line = !outcome.released
      ? `${name} was not held (${outcome.reason})`
      : outcome.reason === "released-expired"
        ? `released ${name}: its lease had already expired, so the next holder still waits out the lock-delay after that expiry`
        : `released ${name}`;
    inv.io.stdout.write(`${line}\n`);
  }
  return 0;
}
