// The local federation issuer of `npm start` (docs/deploy.md, "Keyless connections"): the Worker
// itself at SPONSON_PUBLIC_URL https://sponson.localhost (never resolvable on the internet; the
// emulators reach it through the Worker's own entry), signing with FEDERATION_SIGNING_KEY, an
// RS256 key ring generated into .dev.vars (gitignored) on first use and never printed.
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { DEV_VARS, readDevVar } from "./dev-vars.mjs";
import { newKey } from "./key-ring.mjs";

export const LOCAL_ISSUER = "https://sponson.localhost";

export async function ensureFederationKey() {
  const text = existsSync(DEV_VARS) ? readFileSync(DEV_VARS, "utf8") : "";
  if (readDevVar(text, "FEDERATION_SIGNING_KEY")) return;
  const key = await newKey("RS256");
  const ring = { keys: [{ ...key.privateJwk, status: "current" }] };
  const separator = text.length > 0 && !text.endsWith("\n") ? "\n" : "";
  appendFileSync(DEV_VARS, `${separator}FEDERATION_SIGNING_KEY='${JSON.stringify(ring)}'\n`, { mode: 0o600 });
  process.stderr.write(`start: generated the local federation key ring in ${DEV_VARS} (kid ${key.kid})\n`);
}

/** The vars of the local issuer for npm start's env file; .dev.vars (merged after) may override them. */
export async function localFederationEnv() {
  await ensureFederationKey();
  return { SPONSON_PUBLIC_URL: LOCAL_ISSUER };
}
