// Which of our source files one kind of request passes through, seen by the CPU profiler
// (workerd's inspector implements the DevTools protocol's sampling Profiler, not precise coverage):
// `work` repeats the request many times under dense sampling, and every file of ours with a frame on
// the stack of any sample counts. A lower bound: a file whose code runs for less than a sampling
// interval in all repetitions together may be missed. Files under dev/ (the emulators) and libraries
// are not ours.
import { inspector, newestBundleMap, sourceOf } from "./profile.mjs";

const OURS = /^(workers|durable-objects|shared)\//;

/** Runs `work()` under the sampler (every `intervalUs`); resolves with our files seen on a stack. */
export async function filesOnPath(port, work, map = newestBundleMap(), intervalUs = 25) {
  if (!map) throw new Error("no bundle source map to name files by");
  const insp = await inspector(port);
  try {
    await insp.send("Profiler.enable");
    await insp.send("Profiler.setSamplingInterval", { interval: intervalUs });
    await insp.send("Profiler.start");
    await work();
    const { profile } = await insp.send("Profiler.stop");
    const fileOf = new Map(profile.nodes.map((n) => [n.id, sourceOf(map, n.callFrame)]));
    const parentOf = new Map();
    for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
    const hits = new Map();
    for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
    const samples = new Map();
    for (const [id, count] of hits) {
      const seen = new Set();
      for (let at = id; at !== undefined; at = parentOf.get(at)) {
        const file = fileOf.get(at);
        if (OURS.test(file)) seen.add(file);
      }
      for (const file of seen) samples.set(file, (samples.get(file) ?? 0) + count);
    }
    const files = [...samples.entries()].sort((a, b) => a[0].localeCompare(b[0]));
    return { files: files.map(([file, onStack]) => ({ file, onStack })), count: files.length, intervalUs };
  } finally {
    insp.close();
  }
}
