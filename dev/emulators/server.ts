/**
 * A Worker that serves only the provider emulators over HTTP, for clients that cannot run inside
 * workerd: the vendor-SDK fidelity suite (test/sdk/) and anyone pointing an SDK at them by hand.
 * Started with `wrangler dev --config dev/emulators/wrangler.toml`; never deployed.
 *
 *   ANY  /v1/emulators/{host}/{path}?{query}  → answered by {host}'s emulator as `https://{host}/{path}`
 *   POST /v1/emulator-control/{host}/seed      ← JSON `{key: value}` written into that host's state
 *   POST /v1/emulator-control/{host}/configure ← JSON knobs (./knobs.ts)
 *   GET  /v1/emulator-control/{host}/dump?prefix=  → that host's state
 *   GET  /healthz
 *
 * Only the origin is rewritten: the emulator sees the SDK's own method, path, query, headers and
 * body. The Host header the caller sent is dropped, so a signature over the real host (SigV4) is
 * checked against the host named in the path.
 */
import type { ProviderEmulator } from "../provider-emulator";
import { emulatorObjectName } from "./registry";

export { ProviderEmulator } from "../provider-emulator";

interface EmulatorServerEnv {
  PROVIDER_EMULATOR: DurableObjectNamespace<ProviderEmulator>;
}

const PROXY = /^\/v1\/emulators\/([a-z0-9.-]{1,253})(\/.*)?$/i;
const CONTROL = /^\/v1\/emulator-control\/([a-z0-9.-]{1,253})\/(seed|configure|dump)$/i;
/** Headers a local hop adds or that name the local origin; the provider never sees them. */
const HOP_HEADERS = [
  "host",
  "cf-connecting-ip",
  "cf-ray",
  "cf-visitor",
  "x-forwarded-for",
  "x-forwarded-proto",
  "x-real-ip",
];

function stub(env: EmulatorServerEnv, name: string) {
  return env.PROVIDER_EMULATOR.get(env.PROVIDER_EMULATOR.idFromName(name));
}

async function control(request: Request, env: EmulatorServerEnv, host: string, action: string) {
  const object = stub(env, host);
  if (action === "dump" && request.method === "GET") {
    return Response.json(await object.dump(new URL(request.url).searchParams.get("prefix") ?? ""));
  }
  if (request.method !== "POST") return new Response("method not allowed", { status: 405 });
  const body = (await request.json()) as Record<string, unknown>;
  if (action === "seed") await object.seed(body);
  else await object.configure(body);
  return new Response(null, { status: 204 });
}

export default {
  async fetch(request: Request, env: EmulatorServerEnv): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/healthz") return new Response("ok");
    const ctl = CONTROL.exec(url.pathname);
    if (ctl?.[1] && ctl[2]) return control(request, env, ctl[1].toLowerCase(), ctl[2]);
    const proxied = PROXY.exec(url.pathname);
    if (!proxied?.[1]) return new Response("not an emulator route", { status: 404 });
    const target = new URL(`https://${proxied[1].toLowerCase()}${proxied[2] ?? "/"}${url.search}`);
    const headers = new Headers(request.headers);
    for (const name of HOP_HEADERS) headers.delete(name);
    const hasBody = !["GET", "HEAD"].includes(request.method);
    const forwarded = new Request(target, {
      method: request.method,
      headers,
      body: hasBody ? await request.arrayBuffer() : undefined,
      redirect: "manual",
    });
    return stub(env, emulatorObjectName(target)).fetch(forwarded);
  },
} satisfies ExportedHandler<EmulatorServerEnv>;
