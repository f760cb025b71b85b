/**
 * `hold <key> --reason --ttl` and `unhold <key>`: an admin's hold on a lock (docs/operations.md, "Holds":
 * POST and DELETE /v1/locks/{key}/hold). Runs that need a held lock are refused until it ends.
 * `<key>` may be a provider object's identity: the service names its parent lock.
 */
import { MAX_HOLD_SECONDS, MIN_HOLD_SECONDS } from "../../shared/schemas/hold";
import type { LockView as LockState } from "../../shared/schemas/lock";
import { CliError, type ExitCode } from "../cli-error";
import { clientFor, type Invocation, stringFlag } from "../context";

/** The lock as the caller named it, with its key when they named it by its object's identity. */
export function lockName(given: string, lock: Pick<LockState, "key"> | undefined): string {
  return lock === undefined || lock.key === given ? given : `${given} (${lock.key})`;
}

/**
 * An identity whose lock no run has taken is still a lock (a hold before the first write is
 * useful), but more often a typo: say so, beside the answer.
 */
export function unusedIdentityNote(inv: Invocation, given: string, lock: LockState): void {
  if (lock.key !== given && lock.identity === null)
    inv.io.stderr.write(
      `note: no run has locked ${given} yet; check the identity (\`sponson locks\` lists held locks)\n`,
    );
}

const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86_400 } as const;

/** `3600`, `90s`, `30m`, `2h`, `1d` → seconds; anything else → null. */
export function parseDuration(text: string): number | null {
  const m = /^(\d{1,9})([smhd])?$/.exec(text.trim());
  if (!m?.[1]) return null;
  return Number(m[1]) * UNIT_SECONDS[(m[2] ?? "s") as keyof typeof UNIT_SECONDS];
}

export async function holdCommand(inv: Invocation): Promise<ExitCode> {
  const key = inv.positionals[0];
  const reason = stringFlag(inv, "reason")?.trim();
  const ttl = stringFlag(inv, "ttl");
  if (!key) throw new CliError(2, 'which lock? Usage: sponson hold <key> --reason "<text>" --ttl <duration>');
  if (!reason) throw new CliError(2, "--reason is required: runs refused by the hold are told it");
  const ttlSeconds = ttl === undefined ? null : parseDuration(ttl);
  if (ttlSeconds === null) {
    throw new CliError(2, "--ttl is required: how long the hold lasts, e.g. 3600, 90s, 30m, 2h or 1d");
  }
  if (ttlSeconds < MIN_HOLD_SECONDS || ttlSeconds > MAX_HOLD_SECONDS) {
    throw new CliError(2, `--ttl must be between ${MIN_HOLD_SECONDS}s and ${MAX_HOLD_SECONDS / 86_400}d`);
  }
  const result = await (await clientFor(inv)).hold(key, reason, ttlSeconds);
  if (inv.flags.json === true) {
    inv.io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  }
  const until = new Date(result.hold?.until ?? 0).toISOString();
  unusedIdentityNote(inv, key, result.lock);
  inv.io.stdout.write(
    `held ${lockName(key, result.lock)} until ${until}: ${result.hold?.reason ?? reason}\n`,
  );
  if (result.previous) inv.io.stdout.write(`(replaced the hold set by ${result.previous.by})\n`);
  if (result.lock.held) {
    inv.io.stdout.write(`${result.lock.holder} keeps its lease; the hold applies from the next grant\n`);
  }
  return 0;
}

export async function unholdCommand(inv: Invocation): Promise<ExitCode> {
  const key = inv.positionals[0];
  if (!key) throw new CliError(2, "which lock? Usage: sponson unhold <key> (see `sponson locks`)");
  const result = await (await clientFor(inv)).unhold(key);
  if (inv.flags.json === true) {
    inv.io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  }
  const lifted = result.previous;
  const name = lockName(key, result.lock);
  inv.io.stdout.write(
    lifted ? `lifted the hold on ${name} (set by ${lifted.by}: ${lifted.reason})\n` : `no hold on ${name}\n`,
  );
  return 0;
}
