/** Accounts and widgets of the emulated Cloudflare v4 API's Turnstile (one object for api.cloudflare.com). */
import type { CloudflareToken } from "../../dev/emulators/cloudflare/tokens";
import { type TurnstilePlan, type TurnstileWidget, turnstileKeys } from "../../dev/emulators/turnstile";
import { emulatorStub } from "./emulators";
import { CLOUDFLARE_API_HOST } from "./emulators-r2cors";

export { CLOUDFLARE_API_HOST };

/** A fresh account, a token for it and a sitekey nobody else uses. */
export function freshTurnstileAccount(): { account: string; token: string; sitekey: string } {
  const hex = crypto.randomUUID().replaceAll("-", "");
  return { account: hex, token: `cf-${crypto.randomUUID()}`, sitekey: `0x4AAAAAAA${hex.slice(0, 16)}` };
}

export async function seedTurnstile(entries: {
  token?: [string, CloudflareToken];
  widget?: [string, TurnstileWidget];
  plan?: [string, TurnstilePlan];
}): Promise<void> {
  const seed: Record<string, unknown> = {};
  if (entries.token) seed[`token:${entries.token[0]}`] = entries.token[1];
  if (entries.widget)
    seed[turnstileKeys.widget(entries.widget[0], entries.widget[1].sitekey)] = entries.widget[1];
  if (entries.plan) seed[turnstileKeys.plan(entries.plan[0])] = entries.plan[1];
  await emulatorStub(CLOUDFLARE_API_HOST).seed(seed);
}

export async function turnstileWidgetNow(
  account: string,
  sitekey: string,
): Promise<TurnstileWidget | undefined> {
  const key = turnstileKeys.widget(account, sitekey);
  return (await emulatorStub(CLOUDFLARE_API_HOST).dump(key))[key] as TurnstileWidget | undefined;
}
