/**
 * What the Turnstile emulator keeps, in the api.cloudflare.com object beside R2's. Storage keys:
 *   token:<api token>                       → CloudflareToken (../cloudflare/tokens.ts)
 *   widget:<account>/<sitekey>               → TurnstileWidget
 *   turnstile-plan:<account>                 → TurnstilePlan (absent: Free)
 *   demo:turnstile-token, demo:widget:<key>  → true (./demo.ts)
 */

/** A widget as Cloudflare returns it (Cloudflare API reference, Turnstile widgets: `Widget`). */
export interface TurnstileWidget {
  sitekey: string;
  secret: string;
  name: string;
  mode: "non-interactive" | "invisible" | "managed";
  domains: string[];
  bot_fight_mode: boolean;
  clearance_level: "no_clearance" | "jschallenge" | "managed" | "interactive";
  ephemeral_id: boolean;
  offlabel: boolean;
  region: "world" | "china";
  created_on: string;
  modified_on: string;
  /** A field this emulator does not know is kept as configuration, as one Cloudflare adds would be. */
  [field: string]: unknown;
}

/**
 * Hostnames a widget may hold on the account's plan (Turnstile docs, "Hostname management",
 * "Limitations": Free 10, Enterprise 200); `anyHostname`: the Enterprise entitlement under which a
 * widget may hold none and then runs on every host.
 */
export interface TurnstilePlan {
  hostnames: number;
  anyHostname?: boolean;
}

export const TURNSTILE_PLANS = {
  free: { hostnames: 10 },
  enterprise: { hostnames: 200 },
} as const satisfies Record<string, TurnstilePlan>;

export const turnstileKeys = {
  widget: (account: string, sitekey: string) => `widget:${account}/${sitekey}`,
  plan: (account: string) => `turnstile-plan:${account}`,
} as const;

/** A widget with Cloudflare's defaults for every field not given (a test's or the demo's). */
export function turnstileWidget(
  sitekey: string,
  domains: string[],
  fields: Partial<TurnstileWidget> = {},
): TurnstileWidget {
  const at = new Date(0).toISOString();
  return {
    sitekey,
    secret: `0x4AAAAAAA-emulated-secret-${sitekey}`,
    name: "previews",
    mode: "managed",
    domains,
    ...WIDGET_DEFAULTS,
    region: "world",
    created_on: at,
    modified_on: at,
    ...fields,
  };
}

/** What a PUT that leaves an optional field out sets it to. */
export const WIDGET_DEFAULTS = {
  bot_fight_mode: false,
  clearance_level: "no_clearance",
  ephemeral_id: false,
  offlabel: false,
} as const;
