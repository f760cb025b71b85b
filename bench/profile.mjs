// A CPU profile of the local service through workerd's inspector (wrangler dev --inspector-port):
// the Chrome DevTools Protocol's Profiler domain, sampled while `work` runs; self time per function
// and per source file (through the bundle's source map).
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { join } from "node:path";

/** Connects to the inspector's one target and answers `send(method, params)` with its result. */
export async function inspector(port) {
  const targets = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
  const url = targets[0]?.webSocketDebuggerUrl;
  if (!url) throw new Error("no inspector target");
  // The inspector proxy accepts local origins only (wrangler guards it against DNS rebinding).
  const ws = new WebSocket(url, { headers: { origin: "http://localhost" } });
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = reject;
  });
  let next = 0;
  const pending = new Map();
  ws.onmessage = (event) => {
    const msg = JSON.parse(String(event.data));
    if (msg.id === undefined || !pending.has(msg.id)) return;
    const { resolve, reject } = pending.get(msg.id);
    pending.delete(msg.id);
    if (msg.error) reject(new Error(`${msg.error.message}`));
    else resolve(msg.result);
  };
  const send = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const id = ++next;
      pending.set(id, { resolve, reject });
      ws.send(JSON.stringify({ id, method, params }));
    });
  return { send, close: () => ws.close() };
}

const IDLE = new Set(["(idle)", "(program)"]);

/**
 * Where the busy samples fall: per source file, per function, and per function of ours with the
 * library and runtime time it called (the nearest caller of ours). Counted in samples, not in the
 * profile's time deltas: on a loaded machine the sampler thread is descheduled for milliseconds and
 * a delta would charge that gap to whatever frame came next. `share` is of the busy samples.
 */
export function selfTimes(profile, map, top = 25) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
  const fileOf = (node) =>
    node.callFrame.functionName === "(garbage collector)"
      ? "(garbage collector)"
      : sourceOf(map, node.callFrame);
  const ours = (file) => /^(workers|durable-objects|shared)\//.test(file);
  const line = (node) =>
    (map?.findEntry(node.callFrame.lineNumber, node.callFrame.columnNumber)?.originalLine ?? -1) + 1;
  const byFn = new Map();
  const byFile = new Map();
  const byOurCaller = new Map();
  const add = (m, k) => m.set(k, (m.get(k) ?? 0) + 1);
  let busy = 0;
  for (const id of profile.samples) {
    const node = byId.get(id);
    if (IDLE.has(node.callFrame.functionName)) continue;
    busy += 1;
    const file = fileOf(node);
    add(byFile, file);
    add(byFn, `${node.callFrame.functionName || "(anonymous)"} — ${file}`);
    let up = node;
    while (up && !ours(fileOf(up))) up = byId.get(parentOf.get(up.id));
    add(
      byOurCaller,
      up
        ? `${up.callFrame.functionName || "(anonymous)"} — ${fileOf(up)}:${line(up)}`
        : "(no caller of ours)",
    );
  }
  const rows = (m) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([what, n]) => ({ what, share: n / Math.max(1, busy) }));
  return {
    samples: profile.samples.length,
    busySamples: busy,
    files: rows(byFile),
    functions: rows(byFn),
    ourCallers: rows(byOurCaller),
  };
}

/** Profiles `work()` (sampling every `intervalUs`); resolves with the self-time summary. */
export async function profile(port, work, map = newestBundleMap(), intervalUs = 100) {
  const insp = await inspector(port);
  try {
    await insp.send("Profiler.enable");
    await insp.send("Profiler.setSamplingInterval", { interval: intervalUs });
    await insp.send("Profiler.start");
    await work();
    const { profile: p } = await insp.send("Profiler.stop");
    // The raw profile, for DevTools (Performance → load profile) or a closer look.
    if (process.env.BENCH_PROFILE_OUT) writeFileSync(process.env.BENCH_PROFILE_OUT, JSON.stringify(p));
    return selfTimes(p, map);
  } finally {
    insp.close();
  }
}

/** The newest bundle wrangler dev wrote (index.js under .wrangler/tmp/dev-…), whose source map names our files. */
export function newestBundlePath(root = ".wrangler/tmp") {
  const dirs = readdirSync(root)
    .filter((d) => d.startsWith("dev-") && existsSync(join(root, d, "index.js.map")))
    .map((d) => ({ d, at: statSync(join(root, d, "index.js.map")).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  return dirs[0] ? join(root, dirs[0].d, "index.js") : undefined;
}

/** The newest bundle's source map. */
export function newestBundleMap(root = ".wrangler/tmp") {
  const path = newestBundlePath(root);
  if (!path) return undefined;
  return new SourceMap(JSON.parse(readFileSync(`${path}.map`, "utf8")));
}

/** The source file a bundle position comes from, shortened to the repository or the package. */
export function sourceOf(map, frame) {
  if (!map || !frame.url) return frame.url ? "(runtime)" : "(native)";
  const entry = map.findEntry(frame.lineNumber, frame.columnNumber);
  const file = entry?.originalSource;
  if (!file) return "(bundle)";
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
  if (pkg) return `node_modules/${pkg[1]}`;
  return file.replace(/^.*?\/(workers|durable-objects|shared)\//, "$1/");
}
