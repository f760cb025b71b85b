// `npm test` and `npm run typecheck`: runs the npm scripts it is given at the same time and fails when
// any of them fails. `npm test`'s independent steps (the three typechecks and lint; then the browser,
// CLI and vendor-SDK suites, each against its own `wrangler dev`) each keep about one core busy, so on
// two cores running them together takes about as long as the longest, not their sum
// (docs/performance.md, "The suite"). Each script's output is printed as one block when it ends, so
// logs from different steps never interleave.
import { spawn } from "node:child_process";

const USAGE = `Usage: npm run test (npm test), npm run typecheck   (node scripts/parallel.mjs <npm script>...)

Runs the named npm scripts at the same time, prints each one's output in one block when it ends,
and exits 1 when any of them failed (listing which). Takes no options.
`;

const names = process.argv.slice(2);
if (names.includes("--help") || names.includes("-h")) {
  process.stdout.write(USAGE);
  process.exit(0);
}
if (names.length === 0 || names.some((n) => n.startsWith("-"))) {
  process.stderr.write(USAGE);
  process.exit(2);
}

const npm = process.env.npm_execpath;
/** Through the npm that runs us when there is one (its own node), else the `npm` on PATH. */
const command = (name) => (npm ? [process.execPath, [npm, "run", "-s", name]] : ["npm", ["run", "-s", name]]);

function run(name) {
  const started = Date.now();
  const [program, args] = command(name);
  const child = spawn(program, args, { stdio: ["ignore", "pipe", "pipe"], env: process.env });
  const chunks = [];
  child.stdout.on("data", (d) => chunks.push(d));
  child.stderr.on("data", (d) => chunks.push(d));
  return new Promise((resolve) => {
    child.once("error", (err) => resolve({ name, code: 1, output: `${err.message}\n`, started }));
    child.once("close", (code, signal) =>
      resolve({ name, code: code ?? (signal ? 1 : 0), output: Buffer.concat(chunks).toString(), started }),
    );
  }).then((r) => {
    const seconds = ((Date.now() - r.started) / 1000).toFixed(1);
    const verdict = r.code === 0 ? "ok" : `failed (exit ${r.code})`;
    process.stdout.write(`\n── npm run ${name}: ${verdict}, ${seconds} s ──\n${r.output}`);
    return r;
  });
}

// Ctrl-C reaches the children through the terminal's process group; nothing to forward.
const results = await Promise.all(names.map(run));
const failed = results.filter((r) => r.code !== 0).map((r) => r.name);
if (failed.length > 0) {
  process.stderr.write(`\nfailed: ${failed.map((n) => `npm run ${n}`).join(", ")}\n`);
  process.exit(1);
}
