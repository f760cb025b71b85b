// The local instance's .dev.vars (gitignored; `wrangler dev` loads it): the service signing key
// `npm start` and `npm run token` share. Generated on first use; the private key is never printed.
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { exportJWK, generateKeyPair } from "jose";

export const DEV_VARS = ".dev.vars";

/** The value of KEY in a dotenv file: KEY=value, KEY='value' or KEY="value". */
export function readDevVar(text, key) {
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!m || m[1] !== key) continue;
    const raw = m[2].trim();
    const quoted = /^(['"])(.*)\1$/.exec(raw);
    return quoted ? quoted[2] : raw;
  }
  return undefined;
}

/**
 * The signing key, generated on first use. `npm start` loads it as it starts (`starting: true`);
 * made by `npm run token` meanwhile, a running instance has not loaded it until restarted.
 */
export async function ensureSigningKey({ starting = false } = {}) {
  const text = existsSync(DEV_VARS) ? readFileSync(DEV_VARS, "utf8") : "";
  const existing = readDevVar(text, "SERVICE_SIGNING_KEY");
  if (existing) return JSON.parse(existing);
  const { privateKey } = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
  const jwk = await exportJWK(privateKey);
  const separator = text.length > 0 && !text.endsWith("\n") ? "\n" : "";
  // Single quotes: the JSON holds double quotes, and dotenv takes single-quoted values literally.
  appendFileSync(DEV_VARS, `${separator}SERVICE_SIGNING_KEY='${JSON.stringify(jwk)}'\n`, { mode: 0o600 });
  process.stderr.write(
    starting
      ? `start: generated a service signing key in ${DEV_VARS}; this start loads it\n`
      : `token: generated a service signing key in ${DEV_VARS}; restart \`npm start\` if it is running, to load it\n`,
  );
  return jwk;
}
