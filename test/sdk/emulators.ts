/**
 * The vendor-SDK suite's way to the emulators: rewrite only the origin of a provider URL
 * (`https://{host}/…` → `http://127.0.0.1:{port}/v1/emulators/{host}/…`), so each SDK's own
 * paths, queries, headers and bodies are what the emulator sees; plus the emulator server's
 * control routes to seed a tenant, turn knobs and read what the provider holds.
 */
import { inject, vi } from "vitest";
import type { EmulatorKnobsInput } from "../../dev/emulators/knobs";

export const emulatorsUrl = (): string => inject("emulatorsUrl");

/** A provider URL as the emulator server serves it; other URLs are left as they are. */
export function toEmulator(url: string): string {
  const u = new URL(url);
  if (u.protocol !== "https:") return url;
  return `${emulatorsUrl()}/v1/emulators/${u.host}${u.pathname}${u.search}`;
}

/** Every request the rewriting fetch sent, by provider URL (for asserting what an SDK did). */
export const sent: Array<{ method: string; url: string; headers: Headers }> = [];

const realFetch = globalThis.fetch;

/** `fetch` with the origin rewritten; for SDKs that take a fetch implementation. */
export const emulatorFetch: typeof fetch = async (input, init) => {
  const request = new Request(input, init);
  sent.push({ method: request.method, url: request.url, headers: request.headers });
  const body = ["GET", "HEAD"].includes(request.method) ? undefined : await request.arrayBuffer();
  return realFetch(toEmulator(request.url), {
    method: request.method,
    headers: request.headers,
    body,
    redirect: "manual",
  });
};

/** For SDKs that call the global `fetch` with no way to pass another. */
export function routeGlobalFetchToEmulators(): void {
  vi.stubGlobal("fetch", emulatorFetch);
}

async function control(host: string, action: string, init: RequestInit = {}): Promise<Response> {
  const res = await realFetch(`${emulatorsUrl()}/v1/emulator-control/${host}/${action}`, init);
  if (!res.ok) throw new Error(`emulator control ${action} on ${host}: ${res.status} ${await res.text()}`);
  return res;
}

export async function seed(host: string, entries: Record<string, unknown>): Promise<void> {
  await control(host, "seed", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(entries),
  });
}

export async function configure(host: string, knobs: EmulatorKnobsInput): Promise<void> {
  await control(host, "configure", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(knobs),
  });
}

export async function dump(host: string, prefix = ""): Promise<Record<string, unknown>> {
  return (await control(host, `dump?prefix=${encodeURIComponent(prefix)}`)).json() as Promise<
    Record<string, unknown>
  >;
}

/** A name no other test uses. */
export const unique = (prefix: string): string => `${prefix}-${crypto.randomUUID().slice(0, 8)}`;
