// The local Cloudflare Access issuer of `npm start` (docs/security.md, "Cloudflare Access"): its
// SPONSON_ACCESS (a `.localhost` team, never resolvable on the internet, whose keys only the dev
// entry answers) and its RS256 key in .dev.vars (gitignored), generated on first use and never printed.
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { exportJWK, generateKeyPair } from "jose";
import { DEV_VARS, readDevVar } from "./dev-vars.mjs";

export const LOCAL_ACCESS = {
  teamDomain: "https://sponson-local.access.localhost",
  audience: "sponson-local-access-aud",
  // First match wins: the admin address, then anyone else at example.com reads.
  identities: [
    { email: "admin@example.com", role: "admin" },
    { emailDomain: "example.com", role: "viewer" },
  ],
};

/** SPONSON_ACCESS as .dev.vars sets it, if the developer configured their own team there. */
export function configuredAccess() {
  const text = existsSync(DEV_VARS) ? readFileSync(DEV_VARS, "utf8") : "";
  const own = readDevVar(text, "SPONSON_ACCESS");
  return own ? JSON.parse(own) : undefined;
}

export async function ensureAccessKey() {
  const text = existsSync(DEV_VARS) ? readFileSync(DEV_VARS, "utf8") : "";
  const existing = readDevVar(text, "SPONSON_ACCESS_DEV_KEY");
  if (existing) return JSON.parse(existing);
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const jwk = await exportJWK(privateKey);
  const separator = text.length > 0 && !text.endsWith("\n") ? "\n" : "";
  appendFileSync(DEV_VARS, `${separator}SPONSON_ACCESS_DEV_KEY='${JSON.stringify(jwk)}'\n`, { mode: 0o600 });
  process.stderr.write(`access: generated the local Access issuer's key in ${DEV_VARS}\n`);
  return jwk;
}

/** The vars turning the local issuer on (for npm start's env file), unless .dev.vars names another team. */
export async function localAccessEnv() {
  await ensureAccessKey();
  if (configuredAccess() !== undefined) return {};
  return { SPONSON_ACCESS: JSON.stringify(LOCAL_ACCESS) };
}
