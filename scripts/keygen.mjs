// `npm run keygen` (--help): signing keys for SERVICE_SIGNING_KEY (service tokens, Ed25519) and
// FEDERATION_SIGNING_KEY (the service as an OIDC issuer, RS256), stored nowhere. The secret's value
// goes to stdout, for a pipe straight into the secret store; kids and public keys go to stderr, for
// the operator's records (docs/deploy.md, "The signing key" and "Rotating a signing key").
import { readFileSync } from "node:fs";
import { SignJWT } from "jose";
import { ALGS, addNext, describeRing, newKey, publicPart, readRing, rotate } from "./key-ring.mjs";

/** The first admin token's lifetime: enough to mint the others with POST /v1/tokens. */
const ADMIN_TOKEN_TTL_SECONDS = 3600;

const USAGE = `Usage: npm run keygen [-- --federation] [-- --rotate | --next]
  e.g.  npm run -s keygen | npx wrangler secret put SERVICE_SIGNING_KEY

Generates a key pair. Stores nothing:
  stdout  the secret's value (pipe it into \`wrangler secret put\`; never into a file you keep)
  stderr  the kids and public keys, to keep; for the service key, an admin token valid for one hour
          signed by the key that now signs, to mint the others with POST /v1/tokens

  --federation  the FEDERATION_SIGNING_KEY (RS256, 2048 bits; its public keys are served at
                /.well-known/jwks.json) instead of SERVICE_SIGNING_KEY (Ed25519)
  --rotate      reads the secret's value, or the public JWK keygen printed for it, on stdin and
                prints the rotated key ring: the next key (or a new one) signs, the current key
                still verifies as "previous", the previous one is retired (tokens it signed are
                refused by its kid)
  --next        reads the secret's value on stdin and adds a new "next" key: published and
                verifying, signing after the following --rotate (for the federation key, so the
                clouds have fetched it before it signs)
`;

const args = process.argv.slice(2);
const has = (flag) => args.includes(flag);

function fail(message) {
  process.stderr.write(`keygen: ${message}\n`);
  process.exit(2);
}

async function adminToken(key) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ role: "admin" })
    .setProtectedHeader({ alg: "EdDSA", kid: key.kid, typ: "JWT" })
    .setIssuer("sponson-edge")
    .setAudience("sponson-edge")
    .setSubject("keygen-admin")
    .setIssuedAt(now)
    .setExpirationTime(now + ADMIN_TOKEN_TTL_SECONDS)
    .sign(key.privateKey);
}

async function main() {
  const unknown = args.filter((a) => !["--federation", "--rotate", "--next"].includes(a));
  if (unknown.length > 0) fail(`unknown option ${unknown[0]} (npm run keygen -- --help)`);
  if (has("--rotate") && has("--next")) fail("--rotate and --next are separate steps");
  const kind = has("--federation") ? "federation" : "service";
  const alg = ALGS[kind];
  const secretName = kind === "federation" ? "FEDERATION_SIGNING_KEY" : "SERVICE_SIGNING_KEY";
  if (process.stdout.isTTY)
    process.stderr.write("keygen: stdout is a terminal; pipe it into `wrangler secret put`\n");

  if (!has("--rotate") && !has("--next")) {
    const key = await newKey(alg);
    // The service key stays a lone JWK (the format every release reads); the federation key is a ring.
    const secret = kind === "service" ? key.privateJwk : { keys: [{ ...key.privateJwk, status: "current" }] };
    process.stdout.write(`${JSON.stringify(secret)}\n`);
    process.stderr.write(`public JWK: ${JSON.stringify(key.publicJwk)}\nkid: ${key.kid}\n`);
    if (kind === "service")
      process.stderr.write(
        `admin token (1 h, subject keygen-admin; mint the others with POST /v1/tokens):\n${await adminToken(key)}\n`,
      );
    return;
  }

  if (process.stdin.isTTY) fail(`--rotate and --next read ${secretName}'s value on stdin`);
  let entries;
  try {
    entries = await readRing(readFileSync(0, "utf8"));
    entries = has("--rotate") ? await rotate(entries, alg) : await addNext(entries, alg);
  } catch (err) {
    fail(err.message);
  }
  process.stdout.write(`${JSON.stringify({ keys: entries })}\n`);
  const published = entries
    .filter((e) => e.status !== "retired")
    .map((e) => ({ ...publicPart(e), kid: e.kid, alg, status: e.status }));
  process.stderr.write(
    `${secretName} key ring:\n${describeRing(entries)}\npublic keys: ${JSON.stringify({ keys: published })}\n`,
  );
  const current = entries.find((e) => e.status === "current");
  if (kind === "service" && has("--rotate") && current) {
    const { importJWK } = await import("jose");
    const { status: _s, ...jwk } = current;
    const key = { kid: current.kid, privateKey: await importJWK(jwk, "EdDSA") };
    process.stderr.write(
      `admin token (1 h, signed by the new current key ${current.kid}):\n${await adminToken(key)}\n`,
    );
  }
}

if (has("--help") || has("-h")) process.stdout.write(USAGE);
else await main();
