/**
 * The local notification sink (dev entry only): what `npm start` and the tests would have sent to
 * Slack or the generic webhook is recorded here instead (dev/entry/notification-sink.ts posts it),
 * and `GET /v1/emulators/notifications` shows it. It answers 200 like both targets do; the shared
 * knobs (injected failures) make it answer 5xx, so retries can be shown.
 */
import type { ProviderEmulatorModule } from "../emulator";

export const NOTIFICATION_SINK_HOST = "notifications.sponson.localhost";
export const SINK_KEY_PREFIX = "notification:";

export interface RecordedNotification {
  /** `slack` or `webhook`: which configured target it was for (never the Slack URL: a credential). */
  target: string;
  /** The generic webhook's URL (from configuration); absent for Slack. */
  url?: string;
  /** X-Sponson-Signature-256, when signed. */
  signature?: string;
  body: unknown;
  receivedAt: number;
}

export const notificationSinkEmulator: ProviderEmulatorModule = {
  provider: "notifications",
  matches: (host) => host === NOTIFICATION_SINK_HOST,
  isRead: () => false,
  isWrite: (request) => request.method === "POST",
  async handle(request, state) {
    if (request.method !== "POST") return new Response("method not allowed", { status: 405 });
    const now = Date.now();
    const text = await request.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // kept as text: the sink records what arrived
    }
    const url = request.headers.get("x-sink-url");
    const signature = request.headers.get("x-sponson-signature-256");
    const record: RecordedNotification = {
      target: request.headers.get("x-sink-target") ?? "unknown",
      ...(url ? { url } : {}),
      ...(signature ? { signature } : {}),
      body,
      receivedAt: now,
    };
    // Time first, so keys list in arrival order.
    state.put(`${SINK_KEY_PREFIX}${String(now).padStart(15, "0")}-${crypto.randomUUID()}`, record);
    return new Response("ok", { status: 200 });
  },
  injectedError: (status) => new Response("injected failure", { status }),
};
