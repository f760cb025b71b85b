/**
 * Pure policy decisions (docs/design.md, "Security model"): may a run write this item into this
 * parent object in this environment? Every input is fixed once the plan is resolved (op, identity,
 * item), so the engine asks once per line, before any lease and before any outbound request, for
 * apply and preview alike. Refusals name the rule that failed, never a secret: identities and items
 * are checked against registered secrets before they reach here.
 */
import { fail, ok, type Result, unwrap } from "../../shared/errors";
import type { SecretRegistry } from "../../shared/secrets";
import { matchIdentity, matchItem, matchOp } from "./glob";
import type { PolicyConfig } from "./policy-schema";

export interface WriteTarget {
  /** The line's op, e.g. `auth0.callbackUrl`. */
  op: string;
  /** The op's lockOn identity, or null when the line's resource is an object of its own. */
  identity: string | null;
  /** The value written into the list, e.g. `https://pr-1.preview.example.com/callback`. */
  item: string;
}

const MAX_ITEM_LENGTH = 2_000;

function hasUnsafeCharacters(item: string): boolean {
  for (const ch of item) {
    const code = ch.charCodeAt(0);
    if (code <= 0x20 || code === 0x7f || ch === "\\") return true;
  }
  return false;
}

function refuse(rule: string, message: string, environment: string, target: WriteTarget): Result<never> {
  return fail("FORBIDDEN", message, {
    rule,
    environment,
    op: target.op,
    identity: target.identity,
    item: target.item,
  });
}

export function checkWrite(
  policy: PolicyConfig,
  environment: string,
  target: WriteTarget,
  secrets?: SecretRegistry,
): Result<void> {
  const result = decide(policy, environment, target);
  return secrets === undefined || result.ok ? result : redacted(result, secrets);
}

/** Identities and items are refused upstream when they hold a secret; this is the second belt. */
function redacted(result: Result<never>, secrets: SecretRegistry): Result<never> {
  if (result.ok) return result;
  const detail = JSON.parse(secrets.redact(JSON.stringify(result.error.detail ?? {}))) as Record<
    string,
    unknown
  >;
  return fail(result.error.code, secrets.redact(result.error.message), detail);
}

function decide(policy: PolicyConfig, environment: string, target: WriteTarget): Result<void> {
  if (target.item.length === 0 || target.item.length > MAX_ITEM_LENGTH || hasUnsafeCharacters(target.item)) {
    return refuse(
      "policy.item-syntax",
      "the item is empty, too long, or contains spaces, control characters or a backslash",
      environment,
      target,
    );
  }
  if (policy.mode === "open-dev") return ok(undefined);
  const rules = policy.document.environments[environment];
  if (rules === undefined) {
    return refuse(
      "policy.environment",
      `the policy lists no rules for environment "${environment}": every write to it is refused`,
      environment,
      target,
    );
  }
  if (rules.ops !== undefined && !rules.ops.some((p) => matchOp(p, target.op))) {
    return refuse(
      `policy.environments.${environment}.ops`,
      `op "${target.op}" is not allowed in environment "${environment}"`,
      environment,
      target,
    );
  }
  if (target.identity !== null && !rules.parents.some((p) => matchIdentity(p, target.identity as string))) {
    return refuse(
      `policy.environments.${environment}.parents`,
      `parent object "${target.identity}" may not be written in environment "${environment}"`,
      environment,
      target,
    );
  }
  if (!rules.items.some((p) => matchItem(p, target.item))) {
    return refuse(
      `policy.environments.${environment}.items`,
      `item "${target.item}" does not match any allowed item pattern of environment "${environment}" ` +
        "(the operator's write policy, SPONSON_POLICY: write the item to one of its patterns, or ask " +
        "the operator to allow it)",
      environment,
      target,
    );
  }
  return ok(undefined);
}

/** checkWrite for callers that want a thrown FORBIDDEN (the engine, before any lease). */
export function assertWrite(
  policy: PolicyConfig,
  environment: string,
  target: WriteTarget,
  secrets?: SecretRegistry,
): void {
  unwrap(checkWrite(policy, environment, target, secrets));
}
