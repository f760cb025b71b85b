/**
 * Cloudflare's v4 API (api.cloudflare.com) as one emulator object, as it is one API: R2 bucket
 * CORS (../r2cors) and Turnstile widgets (../turnstile) share its tokens (./tokens.ts), its
 * envelope and throttle (./responses.ts), and a test's knobs on the host. A request goes to the
 * product whose path it names; any other path to R2's, which answers it as Cloudflare routes it.
 */
import type { ProviderEmulatorModule } from "../emulator";
import { r2CorsEmulator } from "../r2cors";
import { turnstileEmulator } from "../turnstile";

export const CLOUDFLARE_API_HOST = "api.cloudflare.com";

const productOf = (request: Request): ProviderEmulatorModule =>
  turnstileEmulator.isRead(request) || turnstileEmulator.isWrite(request)
    ? turnstileEmulator
    : r2CorsEmulator;

export const cloudflareApiEmulator: ProviderEmulatorModule = {
  provider: "cloudflare",
  matches: (host) => host === CLOUDFLARE_API_HOST,
  isRead: (request) => productOf(request).isRead(request),
  isWrite: (request) => productOf(request).isWrite(request),
  handle: (request, state, outbound) => productOf(request).handle(request, state, outbound),
  injectedError: (status, nowMs) => r2CorsEmulator.injectedError(status, nowMs),
};
