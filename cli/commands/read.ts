/** `ledger` and `locks`: what a scope owns, and which locks are held. */
import type { ExitCode } from "../cli-error";
import { clientFor, environmentOf, type Invocation, scopeOf } from "../context";
import { ledgerText, locksText, lockText, scopesText } from "../render";

function print(inv: Invocation, value: unknown, lines: () => string[]): ExitCode {
  const text = inv.flags.json === true ? JSON.stringify(value, null, 2) : lines().join("\n");
  inv.io.stdout.write(`${text}\n`);
  return 0;
}

export async function ledgerCommand(inv: Invocation): Promise<ExitCode> {
  const environment = environmentOf(inv);
  const scope = scopeOf(inv, false);
  const client = await clientFor(inv);
  if (scope === undefined) {
    const scopes = await client.scopes(environment);
    return print(inv, { scopes }, () => scopesText(scopes));
  }
  const receipt = await client.ledger(environment, scope);
  return print(inv, receipt, () => ledgerText(receipt));
}

export async function locksCommand(inv: Invocation): Promise<ExitCode> {
  const client = await clientFor(inv);
  const key = inv.positionals[0];
  if (key !== undefined) {
    const lock = await client.lock(key);
    return print(inv, lock, () => lockText(lock, Date.now()));
  }
  const locks = await client.locks();
  return print(inv, { locks }, () => locksText(locks, Date.now()));
}
