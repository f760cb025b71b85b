/**
 * GET and PUT /client/v4/accounts/{account}/challenges/widgets/{sitekey}. PUT replaces the
 * widget's whole configuration, no precondition (last write wins): `name`, `mode` and `domains` are
 * required ("missing field `mode`" [C: the message a client quoted]), an optional flag left out goes
 * back to its default, and a field the body leaves out that Cloudflare added is gone. What
 * Cloudflare derives itself (`SERVER_FIELDS`) is kept whatever the body says; `region` cannot change
 * after creation. Hostnames: bare, no scheme, port, path or wildcard, at most the plan's number
 * ("invalid value for `domains`, too many values (max: 10)" [C: the message a client quoted];
 * status 400 and code 10400 [U]), at least one unless the account has Any Hostname [U: wording].
 */
import { cfEnvelope, cfError } from "../cloudflare/responses";
import type { EmulatorState } from "../emulator";
import {
  TURNSTILE_PLANS,
  type TurnstilePlan,
  type TurnstileWidget,
  turnstileKeys,
  WIDGET_DEFAULTS,
} from "./state";

export const WIDGET_PATH = /^\/client\/v4\/accounts\/([^/]+)\/challenges\/widgets\/([^/]+)$/;

/** Kept from the stored widget whatever a PUT says (`region` is checked, never changed). */
const SERVER_FIELDS = [
  "sitekey",
  "secret",
  "created_on",
  "modified_on",
  "deployed_via",
  "last_modified_via",
  "region",
];
const MODES = ["non-interactive", "invisible", "managed"];
/** A host name or IPv4 address: no scheme, port, path or wildcard. */
const HOST = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;

/** [U] code: Cloudflare's code for Turnstile's validation errors is not documented. */
export const INVALID_VALUE = 10400;
const invalid = (message: string) => cfError(400, INVALID_VALUE, message);

export const getWidget = (widget: TurnstileWidget) => cfEnvelope(200, widget);

export async function putWidget(
  request: Request,
  state: EmulatorState,
  account: string,
  stored: TurnstileWidget,
): Promise<Response> {
  const body = await request.json().catch(() => null);
  if (typeof body !== "object" || body === null || Array.isArray(body))
    return cfError(400, 6007, "Malformed JSON in request body");
  const given = body as Record<string, unknown>;
  for (const field of ["domains", "mode", "name"])
    if (!(field in given)) return invalid(`missing field \`${field}\``);
  const refused = refusedValue(given, stored, state.get<TurnstilePlan>(turnstileKeys.plan(account)));
  if (refused) return refused;
  const kept = Object.fromEntries(SERVER_FIELDS.filter((f) => f in stored).map((f) => [f, stored[f]]));
  const editable = Object.fromEntries(Object.entries(given).filter(([f]) => !SERVER_FIELDS.includes(f)));
  const widget = {
    ...kept,
    ...WIDGET_DEFAULTS,
    ...editable,
    modified_on: new Date().toISOString(),
    last_modified_via: "api",
  } as unknown as TurnstileWidget;
  state.put(turnstileKeys.widget(account, stored.sitekey), widget);
  return cfEnvelope(200, widget);
}

function refusedValue(
  given: Record<string, unknown>,
  stored: TurnstileWidget,
  plan: TurnstilePlan = TURNSTILE_PLANS.free,
): Response | null {
  if (typeof given.name !== "string" || given.name === "") return invalid("invalid value for `name`");
  if (!MODES.includes(given.mode as string)) return invalid("invalid value for `mode`");
  if ("region" in given && given.region !== stored.region)
    return invalid("invalid value for `region`: it cannot be changed after creation");
  const domains = given.domains;
  if (!Array.isArray(domains) || domains.some((d) => typeof d !== "string" || !HOST.test(d)))
    return invalid("invalid value for `domains`: hostnames only, without a scheme, port, path or wildcard");
  if (domains.length > plan.hostnames)
    return invalid(`invalid value for \`domains\`, too many values (max: ${plan.hostnames})`);
  if (domains.length === 0 && !plan.anyHostname)
    return invalid("invalid value for `domains`, too few values (min: 1)");
  return null;
}
