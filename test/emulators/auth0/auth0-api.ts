/** Raw HTTP against the emulated tenant, as a provider client would send it. */
import { env } from "cloudflare:workers";
import { providerFetch } from "../../../dev/emulators/transport";

export const call = (url: string, init?: RequestInit) => providerFetch(env)(url, init);

export async function token(domain: string, clientId: string, clientSecret: string): Promise<string> {
  const res = await call(`https://${domain}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      grant_type: "client_credentials",
      client_id: clientId,
      client_secret: clientSecret,
      audience: `https://${domain}/api/v2/`,
    }),
  });
  const body = (await res.json()) as { access_token: string };
  return body.access_token;
}

export function patch(domain: string, client: string, bearer: string, body: unknown) {
  return call(`https://${domain}/api/v2/clients/${client}`, {
    method: "PATCH",
    headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

export function get(domain: string, client: string, bearer: string, query = "") {
  return call(`https://${domain}/api/v2/clients/${client}${query}`, {
    headers: { authorization: `Bearer ${bearer}` },
  });
}
