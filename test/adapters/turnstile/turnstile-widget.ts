/** A fresh emulated Turnstile widget, an API token for its account, and an adapter context. */

import { type TurnstileWidget, turnstileWidget } from "../../../dev/emulators/turnstile";
import type { OpSpec } from "../../../workers/adapters/op-spec";
import { turnstileAdapter } from "../../../workers/adapters/turnstile";
import { freshTurnstileAccount, seedTurnstile, turnstileWidgetNow } from "../../helpers/emulators-turnstile";
import { harness, type SetupFailure } from "../../helpers/provider-contract";

export const hostnameOp = turnstileAdapter.ops[0] as OpSpec;

/** A widget configured the way an Enterprise customer might: every flag away from its default. */
export const CONFIGURED: Partial<TurnstileWidget> = {
  name: "login form",
  mode: "invisible",
  bot_fight_mode: true,
  clearance_level: "interactive",
  ephemeral_id: true,
  offlabel: true,
  deployed_via: "dashboard",
};

export async function turnstileWidgetWith(
  domains: string[],
  failure?: SetupFailure | "no-turnstile",
  fields: Partial<TurnstileWidget> = CONFIGURED,
) {
  const { account, token, sitekey } = freshTurnstileAccount();
  if (failure !== "unauthenticated")
    await seedTurnstile({
      token: [token, { accounts: [account], ...(failure === "no-turnstile" ? { products: ["r2"] } : {}) }],
    });
  if (failure === "forbidden")
    await seedTurnstile({ token: [token, { accounts: [account], readOnly: true }] });
  const widget = turnstileWidget(sitekey, domains, fields);
  if (failure !== "missing") await seedTurnstile({ widget: [account, widget] });
  const h = harness(turnstileAdapter, { type: "turnstile", accountId: account, apiToken: token }, [token]);
  return { ...h, account, token, sitekey, widget, stored: () => turnstileWidgetNow(account, sitekey) };
}
