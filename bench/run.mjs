// `npm run bench`: prints Markdown tables and writes bench/results/<name>.json (BENCH_NAME, default
// "latest"). Every figure is a median with p99 over repetitions; every comparison is a ratio
// measured in the same run. Not part of `npm test`. See docs/performance.md.
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CAS_DELETE, freePort, gitRepo, have, Resp, startEtcd, startRedis, waitFor } from "./baselines.mjs";
import { loadConnections, loadRun, plan } from "./load.mjs";
import { filesOnPath } from "./path-files.mjs";
import { profile } from "./profile.mjs";
import { pollingHandoff, summary, tables } from "./report.mjs";

const USAGE = `Usage: npm run bench

Measures the lock service and compares it with Redis, etcd and git refs on this machine; prints
Markdown tables and writes bench/results/<name>.json. Starts \`wrangler dev\` on the dev entry
(wrangler.dev.toml) on temporary state, and redis-server and etcd (installed with apt-get when
missing and run as root). Not part of \`npm test\`; see docs/performance.md.

Environment:
  BENCH_N             repetitions of each timed loop (default 300)
  BENCH_NAME          result file name (default latest)
  BENCH_SKIP_RUNTIME  1: skip the in-runtime half (bench/vitest.config.ts)
  BENCH_PARTS         comma-separated parts to run: http, baselines, runtime (default all)
  BENCH_RUNTIME       comma-separated in-runtime files to run, by name (apply, lease, tokens,
                      budget; default all): BENCH_PARTS=runtime BENCH_RUNTIME=budget npm run bench
  BENCH_REPS, BENCH_LATENCY_MS, BENCH_SAMPLES  knobs of the in-runtime half (3, 20, 40)
`;

// Before anything is started: --help only prints.
if (process.argv.includes("--help") || process.argv.includes("-h")) {
  process.stdout.write(USAGE);
  process.exit(0);
}

const N = Number(process.env.BENCH_N ?? 300);
const children = [];
const results = { startedAt: new Date().toISOString(), machine: machine(), skipped: [] };
/** Children run in their own process groups, so wrangler's and vitest's workerd go with them. */
function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, "SIGTERM");
  } catch {
    child.kill("SIGTERM");
  }
}
const cleanup = () => children.forEach(stop);
process.on("exit", cleanup);
process.on("SIGINT", () => process.exit(130));

function machine() {
  const cpus = readFileSync("/proc/cpuinfo", "utf8").match(/^processor/gm)?.length ?? 0;
  return { cpus, node: process.version, note: "shared machine: absolute figures are noisy, compare ratios" };
}

/** Installs a missing Debian package when root, else says what is missing. */
function ensure(cmd, pkg) {
  if (have(cmd)) return true;
  if (process.getuid?.() === 0 && have("apt-get")) {
    try {
      console.error(`bench: installing ${pkg} (apt-get)`);
      execFileSync(
        "sh",
        [
          "-c",
          `apt-get install -y --no-install-recommends ${pkg} >/dev/null 2>&1 || (apt-get update >/dev/null 2>&1 && apt-get install -y --no-install-recommends ${pkg} >/dev/null 2>&1)`,
        ],
        { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } },
      );
    } catch {}
    if (have(cmd)) return true;
  }
  results.skipped.push(
    `${cmd} not found: install Debian package ${pkg} (apt-get install -y ${pkg}) to measure it`,
  );
  console.error(`bench: skipping ${cmd}: install ${pkg}`);
  return false;
}

async function timeLoop(n, op, warm = 20) {
  for (let i = 0; i < warm; i++) await op(i);
  const samples = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await op(i);
    samples.push(performance.now() - t);
  }
  return summary(samples);
}

// --- the local service (wrangler dev on the dev entry: embedded state in a temp dir, emulators) ---
async function startService() {
  const token = execFileSync("node", ["scripts/token.mjs", "--role", "admin", "--ttl", "7200"])
    .toString()
    .trim();
  const port = await freePort();
  const inspectorPort = await freePort();
  const state = mkdtempSync(join(tmpdir(), "sponson-bench-state-"));
  const child = spawn(
    "npx",
    [
      "wrangler",
      "dev",
      "--config",
      "wrangler.dev.toml",
      "--ip",
      "127.0.0.1",
      "--port",
      String(port),
      // The CPU profile of one apply is taken through workerd's inspector (bench/profile.mjs).
      "--inspector-port",
      String(inspectorPort),
      "--persist-to",
      state,
      "--var",
      "AUTH0_CLIENT_SECRET:local-demo-secret",
      "--var",
      `SPONSON_CONNECTIONS:${JSON.stringify(loadConnections())}`,
      // One repository, so scope endpoints need no ?repository= (lock keys carry its id).
      "--var",
      `SPONSON_REPOSITORIES:${JSON.stringify([{ name: "Codertocat/Hello-World", id: 186853002 }])}`,
      "--show-interactive-dev-session=false",
    ],
    {
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
    },
  );
  child.stdout.resume();
  child.stderr.resume();
  children.push(child);
  const base = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${base}/healthz`)).ok, "wrangler dev", 180_000);
  return { base, token, child, inspectorPort };
}

/** The workerd processes below `rootPid` (wrangler's and vitest's runtimes). */
function workerdPids(rootPid) {
  const parent = new Map();
  const names = new Map();
  for (const d of readdirSync("/proc").filter((x) => /^\d+$/.test(x))) {
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
      names.set(Number(d), readFileSync(`/proc/${d}/cmdline`, "utf8"));
    } catch {}
  }
  const pids = [];
  for (const [pid, cmd] of names) {
    if (!cmd.includes("workerd")) continue;
    let p = pid;
    while (p > 1 && p !== rootPid) p = parent.get(p) ?? 1;
    if (p === rootPid) pids.push(pid);
  }
  return pids;
}

/** Peak RSS (VmHWM) of the workerd processes below `pid`, in MiB. */
function workerdPeakMiB(rootPid) {
  let peak = 0;
  for (const pid of workerdPids(rootPid)) {
    try {
      const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
      if (m) peak = Math.max(peak, Number(m[1]) / 1024);
    } catch {}
  }
  return peak;
}

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (getconf CLK_TCK). */
const CLK_TCK = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

/** User + system CPU of the workerd processes below `rootPid` so far, in ms (/proc/<pid>/stat). */
function workerdCpuMs(rootPid) {
  let ticks = 0;
  for (const pid of workerdPids(rootPid)) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
    } catch {}
  }
  return (ticks * 1000) / CLK_TCK;
}

/**
 * workerd's CPU per request over `n` sequential requests, nothing else running against the service:
 * the local runtime's cost of one request (healthz), of one lock-object call (a lock read) and of
 * one apply, to set the apply's CPU beside (docs/performance.md, "The two figures not met").
 */
async function cpuPerRequest(svc, n, op) {
  const before = workerdCpuMs(svc.child.pid);
  for (let i = 0; i < n; i++) await op(i);
  return (workerdCpuMs(svc.child.pid) - before) / n;
}

/** PROFILE_APPLIES sequential three-line applies on a warm application, profiled together. */
const PROFILE_APPLIES = 20;
async function profileApplies(svc, auth) {
  const apply = (scope) =>
    fetch(`${svc.base}/v1/scopes/preview/${scope}/apply`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ plan: plan(0) }),
    }).then(async (r) => {
      if (r.status !== 200) throw new Error(`apply ${r.status} ${await r.text()}`);
      await r.arrayBuffer();
    });
  const first = 900_000 + Math.floor(Math.random() * 90_000);
  await apply(`pr-${first}`); // warm: the token, the application's lock object
  // The same applies with no profiler attached (sampling costs workerd CPU of its own).
  const unprofiledFrom = first + PROFILE_APPLIES + PATH_APPLIES + 1;
  results.cpuPerRequest.applyUnprofiled = await cpuPerRequest(svc, PROFILE_APPLIES, (i) =>
    apply(`pr-${unprofiledFrom + i}`),
  );
  results.warmPath = await warmOneLinePath(svc, auth, first + PROFILE_APPLIES + 1);
  try {
    const cpuBefore = workerdCpuMs(svc.child.pid);
    const p = await profile(svc.inspectorPort, async () => {
      for (let i = 1; i <= PROFILE_APPLIES; i++) await apply(`pr-${first + i}`);
    });
    const cpuMs = workerdCpuMs(svc.child.pid) - cpuBefore;
    return { applies: PROFILE_APPLIES, cpuMsPerApply: cpuMs / PROFILE_APPLIES, ...p };
  } catch (err) {
    results.skipped.push(`CPU profile: ${err.message}`);
    return undefined;
  }
}

/** Repetitions of the warm one-line apply the path's files are sampled over. */
const PATH_APPLIES = 40;

/**
 * The warm one-line path (docs/performance.md, "The core's weight"): one new line applied to a
 * new scope on a warm application — the product files it runs code in (sampled over PATH_APPLIES
 * repetitions, bench/path-files.mjs) and the lock-object calls it makes (the run's own counts).
 */
async function warmOneLinePath(svc, auth, first) {
  const oneLine = { ...plan(0), lines: plan(0).lines.slice(0, 1) };
  const lockOps = [];
  try {
    const path = await filesOnPath(svc.inspectorPort, async () => {
      for (let i = 0; i < PATH_APPLIES; i++) {
        const r = await fetch(`${svc.base}/v1/scopes/preview/pr-${first + i}/apply`, {
          method: "POST",
          headers: auth,
          body: JSON.stringify({ plan: oneLine }),
        });
        if (r.status !== 200) throw new Error(`apply ${r.status} ${await r.text()}`);
        lockOps.push((await r.json()).counts?.lockOps);
      }
    });
    return { ...path, applies: PATH_APPLIES, lockOps: Math.max(...lockOps) };
  } catch (err) {
    results.skipped.push(`warm one-line path: ${err.message}`);
    return undefined;
  }
}

/** Requests each per-request CPU figure is averaged over (CLK_TCK is 10 ms: 100 keep it within 0.1 ms). */
const CPU_REQUESTS = 100;

async function httpPart() {
  const svc = await startService();
  const auth = { authorization: `Bearer ${svc.token}`, "content-type": "application/json" };
  const empty = JSON.stringify({ plan: { version: 2, lines: [] } });
  results.http = {};
  results.http.emptyApply = await timeLoop(N, () =>
    fetch(`${svc.base}/v1/scopes/preview/branch-bench/apply`, {
      method: "POST",
      headers: auth,
      body: empty,
    }).then(async (r) => {
      if (r.status !== 200) throw new Error(`apply ${r.status} ${await r.text()}`);
      await r.arrayBuffer();
    }),
  );
  const key = encodeURIComponent("scope:186853002/preview/branch-bench");
  results.http.lockRead = await timeLoop(N, () =>
    fetch(`${svc.base}/v1/locks/${key}`, { headers: auth }).then((r) => r.arrayBuffer()),
  );
  results.http.healthz = await timeLoop(N, () => fetch(`${svc.base}/healthz`).then((r) => r.arrayBuffer()));
  results.cpuPerRequest = {
    healthz: await cpuPerRequest(svc, CPU_REQUESTS, () =>
      fetch(`${svc.base}/healthz`).then((r) => r.arrayBuffer()),
    ),
    lockRead: await cpuPerRequest(svc, CPU_REQUESTS, () =>
      fetch(`${svc.base}/v1/locks/${key}`, { headers: auth }).then((r) => r.arrayBuffer()),
    ),
  };
  results.load = await loadRun(svc.base, auth, () => workerdCpuMs(svc.child.pid));
  results.memory = { workerdPeakRssMiBAfterLoad: workerdPeakMiB(svc.child.pid) };
  results.profile = await profileApplies(svc, auth);
  stop(svc.child);
}

async function baselinesPart() {
  results.baselines = {};
  if (ensure("redis-server", "redis-server")) {
    const port = await startRedis(children);
    const r = await Resp.connect(port);
    results.baselines.redis = await timeLoop(N * 3, async (i) => {
      const v = `run-${i}`;
      const ok = await r.cmd("SET", "lock:x", v, "NX", "PX", "30000");
      if (!ok.startsWith("+OK")) throw new Error(`redis SET refused: ${ok}`);
      await r.cmd("EVAL", CAS_DELETE, "1", "lock:x", v);
    });
    // Polling waiter against Redis: the measured try-acquire round trip feeds the back-off model.
    results.baselines.redisTryAcquire = await timeLoop(N, async () =>
      r.cmd("SET", "lock:busy", "x", "NX", "PX", "30000"),
    );
    r.close();
  }
  if (ensure("etcd", "etcd-server")) {
    const base = await startEtcd(children);
    const post = (path, body) =>
      fetch(`${base}${path}`, { method: "POST", body: JSON.stringify(body) }).then((x) => x.json());
    // A client session holds one lease for all its locks (as etcdctl lock / clientv3 concurrency do).
    const { ID: lease } = await post("/v3/lease/grant", { TTL: 30 });
    const name = Buffer.from("lock-x").toString("base64");
    results.baselines.etcd = await timeLoop(N, async () => {
      const locked = await post("/v3/lock/lock", { name, lease });
      await post("/v3/lock/unlock", { key: locked.key });
    });
  }
  if (ensure("git", "git")) {
    const { dir, oid } = gitRepo();
    const zero = "0".repeat(oid.length);
    results.baselines.gitRef = await timeLoop(
      Math.min(N, 200),
      async () => {
        execFileSync("git", ["-C", dir, "update-ref", "refs/locks/x", oid, zero]);
        execFileSync("git", ["-C", dir, "update-ref", "-d", "refs/locks/x", oid]);
      },
      5,
    );
  }
}

/** The in-runtime half: bench/runtime/*.bench.test.ts under workerd, peak RSS sampled meanwhile. */
async function runtimePart() {
  // BENCH_RUNTIME picks files by name (bench/runtime/<name>.bench.test.ts); vitest takes them as filters.
  const only = (process.env.BENCH_RUNTIME ?? "").split(",").filter((n) => /^[a-z-]+$/.test(n));
  const files = only.map((n) => `bench/runtime/${n}.bench.test.ts`);
  const child = spawn("npx", ["vitest", "run", "-c", "bench/vitest.config.ts", ...files], {
    stdio: ["ignore", "pipe", "inherit"],
    detached: true,
  });
  children.push(child);
  let out = "";
  child.stdout.on("data", (d) => {
    out += d.toString();
  });
  let peak = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, workerdPeakMiB(child.pid));
  }, 250);
  const code = await new Promise((r) => child.on("exit", r));
  clearInterval(sampler);
  if (code !== 0) console.error(`bench: the in-runtime bench exited ${code}`);
  results.runtime = {};
  for (const line of out.split("\n")) {
    const at = line.indexOf("BENCH_RESULT ");
    if (at < 0) continue;
    const { name, value } = JSON.parse(line.slice(at + "BENCH_RESULT ".length));
    results.runtime[name.replace(/^runtime\./, "")] = value;
  }
  results.memory = { ...results.memory, workerdPeakRssMiBInRuntimeBench: peak };
}

const parts = new Set((process.env.BENCH_PARTS ?? "http,baselines,runtime").split(","));
if (parts.has("http")) await httpPart();
if (parts.has("baselines")) await baselinesPart();
else results.baselines = {};
if (parts.has("runtime") && process.env.BENCH_SKIP_RUNTIME !== "1") await runtimePart();
const rtt = results.baselines.redisTryAcquire?.median ?? 0.1;
results.handoffPolling = pollingHandoff(rtt);
results.finishedAt = new Date().toISOString();
const md = tables(results);
console.log(md);
mkdirSync("bench/results", { recursive: true });
const name = process.env.BENCH_NAME ?? "latest";
writeFileSync(`bench/results/${name}.json`, `${JSON.stringify({ ...results, markdown: md }, null, 2)}\n`);
console.error(`bench: wrote bench/results/${name}.json`);
cleanup();
process.exit(0);
