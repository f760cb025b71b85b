/**
 * The Turnstile widgets subset of Cloudflare's v4 API (api.cloudflare.com; ./widget-endpoint.ts):
 * a widget read and replaced whole, in the v4 envelope (../cloudflare/responses.ts), for a token
 * granted Turnstile on the account (../cloudflare/tokens.ts). An unknown widget is a 404 (its code
 * and wording are [U]). State: ./state.ts. Mounted with R2's under one host by ../cloudflare.
 */
import { cfError } from "../cloudflare/responses";
import { refusedToken } from "../cloudflare/tokens";
import type { ProviderEmulatorModule } from "../emulator";
import { r2CorsEmulator } from "../r2cors";
import { provisionDemoTurnstile } from "./demo";
import { type TurnstileWidget, turnstileKeys } from "./state";
import { getWidget, putWidget, WIDGET_PATH } from "./widget-endpoint";

const pathOf = (request: Request) => new URL(request.url).pathname;

export const turnstileEmulator: ProviderEmulatorModule = {
  provider: "turnstile",
  matches: (host) => host === "api.cloudflare.com",
  isRead: (request) => request.method === "GET" && WIDGET_PATH.test(pathOf(request)),
  isWrite: (request) => request.method !== "GET" && WIDGET_PATH.test(pathOf(request)),

  async handle(request, state) {
    const match = pathOf(request).match(WIDGET_PATH);
    if (!match?.[1] || !match[2]) return cfError(404, 7003, "Could not route to the requested resource.");
    const [account, sitekey] = [match[1], decodeURIComponent(match[2])];
    provisionDemoTurnstile(account, sitekey, state);
    const refused = refusedToken(request, state, account, "turnstile");
    if (refused) return refused;
    if (request.method !== "GET" && request.method !== "PUT")
      return cfError(404, 7003, "Could not route to the requested resource.");
    const widget = state.get<TurnstileWidget>(turnstileKeys.widget(account, sitekey));
    // [U] the code and wording Cloudflare answers for a sitekey the account does not have.
    if (!widget) return cfError(404, 10404, "widget not found");
    return request.method === "GET" ? getWidget(widget) : putWidget(request, state, account, widget);
  },

  // One API, one throttle and one error shape for every product: R2's answers.
  injectedError: (status, nowMs) => r2CorsEmulator.injectedError(status, nowMs),
};

export { DEMO_TURNSTILE } from "./demo";
export {
  TURNSTILE_PLANS,
  type TurnstilePlan,
  type TurnstileWidget,
  turnstileKeys,
  turnstileWidget,
} from "./state";
export { INVALID_VALUE } from "./widget-endpoint";
