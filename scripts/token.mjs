// `npm run token -- --role admin|ci|viewer [--scope env/scope ...] [--repository owner/name] [--ttl 3600] [--sub name]` (--help)
// `npm run token -- --access alice@example.com`: a Cloudflare Access assertion from the local issuer.
// Prints a service token for the local instance (README, "Try it"), signed with SERVICE_SIGNING_KEY from
// .dev.vars (gitignored; `wrangler dev` loads it). When the key is missing it is generated and
// appended there. The private key is never printed.
import { parseArgs } from "node:util";
import { calculateJwkThumbprint, importJWK, SignJWT } from "jose";
import { configuredAccess, ensureAccessKey, LOCAL_ACCESS } from "./dev-access.mjs";
import { DEV_VARS, ensureSigningKey } from "./dev-vars.mjs";
import { signServiceToken } from "./service-token.mjs";

const ROLES = ["admin", "ci", "viewer"];
const DEFAULT_TTL_SECONDS = 3600;

const USAGE = `Usage: npm run token -- --role admin|ci|viewer [--scope env/scope ...] [--ttl seconds] [--sub name]
       npm run token -- --access <email> [--ttl seconds]

Prints a service token for the local instance (\`npm start\`), signed with SERVICE_SIGNING_KEY from
.dev.vars; the key is generated there when missing. The private key is never printed.

Options:
  --role <role>     admin (any scope, force-release), ci (the scopes of --scope), viewer (reads)
  --scope <pattern> environment/scope a ci token may act on, e.g. preview/pr-1 or */pr-2; repeatable
  --ttl <seconds>   lifetime (default ${DEFAULT_TTL_SECONDS})
  --sub <name>      subject recorded as the actor (default local-<role>)
  --access <email>  instead: a Cloudflare Access assertion for <email> from the local Access issuer
                    (send it as Cf-Access-Jwt-Assertion, or as the CF_Authorization cookie);
                    admin@example.com is admin, any other @example.com address a viewer
  -h, --help        this text

Examples:
  export SPONSON_TOKEN=$(npm run -s token -- --role ci --scope 'preview/*')
  curl -H "Cf-Access-Jwt-Assertion: $(npm run -s token -- --access alice@example.com)" localhost:8787/v1/locks
`;

function fail(message) {
  process.stderr.write(`token: ${message}\n`);
  process.exit(2);
}

const { values } = parseArgs({
  options: {
    role: { type: "string" },
    scope: { type: "string", multiple: true, default: [] },
    ttl: { type: "string", default: String(DEFAULT_TTL_SECONDS) },
    sub: { type: "string" },
    help: { type: "boolean", short: "h", default: false },
    repository: { type: "string" },
    access: { type: "string" },
  },
  strict: true,
});

if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}

if (values.access !== undefined) {
  process.stdout.write(`${await accessAssertion(values.access, Number(values.ttl))}\n`);
  process.exit(0);
}

/** An assertion shaped as Cloudflare Access signs them, from the local issuer (scripts/dev-access.mjs). */
async function accessAssertion(email, ttl) {
  if (!/^[^@\s]+@[^@\s]+$/.test(email)) fail(`--access "${email}" must be an email address`);
  if (!Number.isInteger(ttl) || ttl <= 0) fail("--ttl must be a positive number of seconds");
  const team = configuredAccess() ?? LOCAL_ACCESS;
  if (!new URL(team.teamDomain).hostname.endsWith(".localhost"))
    fail("SPONSON_ACCESS in .dev.vars names a real Access team: only Cloudflare signs its assertions");
  const jwk = await ensureAccessKey();
  const kid = await calculateJwkThumbprint({ kty: "RSA", e: jwk.e, n: jwk.n });
  const now = Math.floor(Date.now() / 1000);
  const subject = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(email.toLowerCase()));
  return new SignJWT({
    email,
    type: "app",
    identity_nonce: crypto.randomUUID(),
    country: "XX",
  })
    .setProtectedHeader({ alg: "RS256", kid })
    .setIssuer(team.teamDomain)
    .setAudience([team.audience])
    .setSubject(Buffer.from(subject).toString("hex").slice(0, 32))
    .setIssuedAt(now)
    .setNotBefore(now)
    .setExpirationTime(now + ttl)
    .sign(await importJWK(jwk, "RS256"));
}

if (!ROLES.includes(values.role)) fail(`--role must be one of ${ROLES.join(", ")}`);
const ttl = Number(values.ttl);
if (!Number.isInteger(ttl) || ttl <= 0) fail("--ttl must be a positive number of seconds");
for (const scope of values.scope) {
  if (!/^[^/\s]+\/\S+$/.test(scope))
    fail(`--scope "${scope}" must be environment/scope, e.g. preview/pr-1 or */pr-2`);
}
if (values.repository !== undefined) {
  if (!/^[A-Za-z0-9_.-]{1,100}\/[A-Za-z0-9_.-]{1,100}$/.test(values.repository))
    fail(`--repository "${values.repository}" must be owner/name, e.g. acme/web`);
  // ci and viewer tokens are bound by the claim; an admin token names the repository per request.
  if (values.role === "admin") fail("--repository binds ci and viewer tokens; admin uses ?repository=");
}
if (values.role === "admin" && values.scope.length > 0)
  process.stderr.write("token: admin acts on any scope; --scope is ignored\n");
if (values.role === "ci" && values.scope.length === 0)
  process.stderr.write("token: a ci token without --scope acts on nothing\n");

// SERVICE_SIGNING_KEY may be a key ring: the token is signed by its current key (scripts/service-token.mjs).
const signingSecret = JSON.stringify(await ensureSigningKey());
const signed = await signServiceToken(signingSecret, {
  role: values.role,
  scopes: values.scope,
  repository: values.repository,
  sub: values.sub ?? `local-${values.role}`,
  ttl,
}).catch((err) => fail(`${err.message} (in ${DEV_VARS})`));
// The id goes to stderr: `$(npm run -s token …)` captures the token alone.
process.stderr.write(`token: jti ${signed.jti} (revoke with POST /v1/tokens/revoked)\n`);
process.stdout.write(`${signed.token}\n`);
