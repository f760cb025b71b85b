// `npm run keygen` (--help): a new Ed25519 signing key for SERVICE_SIGNING_KEY, stored nowhere.
// The private JWK goes to stdout, for a pipe straight into the secret store; the public JWK and
// its key id go to stderr, for the operator's records, with a first admin token valid for an hour
// (docs/deploy.md, "The signing key"): the private key is never needed again outside the Worker.
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT } from "jose";

/** The first admin token's lifetime: enough to mint the others with POST /v1/tokens. */
const ADMIN_TOKEN_TTL_SECONDS = 3600;

const USAGE = `Usage: npm run keygen   e.g.  npm run -s keygen | npx wrangler secret put SERVICE_SIGNING_KEY

Generates an Ed25519 key pair for the service's tokens. Stores nothing:
  stdout  the private JWK (pipe it into \`wrangler secret put\`; never into a file you keep)
  stderr  the public JWK and its key id (kid), to keep, e.g. for SERVICE_PUBLIC_KEY while rotating,
          and a first admin token valid for one hour, to mint the others with POST /v1/tokens
Takes no options.
`;

if (process.argv.includes("--help") || process.argv.includes("-h")) {
  process.stdout.write(USAGE);
} else {
  const { publicKey, privateKey } = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
  const pub = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(pub);
  const secret = { ...(await exportJWK(privateKey)), kid };
  if (process.stdout.isTTY)
    process.stderr.write("keygen: stdout is a terminal; pipe it into `wrangler secret put`\n");
  process.stdout.write(`${JSON.stringify(secret)}\n`);
  const now = Math.floor(Date.now() / 1000);
  const admin = await new SignJWT({ role: "admin" })
    .setProtectedHeader({ alg: "EdDSA", kid, typ: "JWT" })
    .setIssuer("sponson-edge")
    .setAudience("sponson-edge")
    .setSubject("keygen-admin")
    .setIssuedAt(now)
    .setExpirationTime(now + ADMIN_TOKEN_TTL_SECONDS)
    .sign(privateKey);
  process.stderr.write(
    `public JWK: ${JSON.stringify({ ...pub, kid })}\nkid: ${kid}\n` +
      `admin token (1 h, subject keygen-admin; mint the others with POST /v1/tokens):\n${admin}\n`,
  );
}
