// The hot path's targets, each next to its figure from the same run (docs/performance.md).

const LOAD_WALL_BEFORE_MS = 6700; // the load run's wall time before the hot-path work, same machine

/** One row per target: what, the figure, the target, met or not (null when not measured). */
export function targetRows(r) {
  const rows = [];
  const add = (what, figure, target, met) =>
    rows.push({ what, figure, target, met: figure === undefined || Number.isNaN(figure) ? null : met });
  const lease = r.runtime?.leaseRoundTrip?.median;
  const etcd = r.baselines?.etcd?.median;
  add(
    "lease acquire + release in the runtime (ms)",
    lease,
    `≤ etcd lock + unlock (${etcd?.toFixed(2) ?? "—"} ms)`,
    etcd !== undefined && lease <= etcd,
  );
  const handoff = r.runtime?.handoff?.median;
  add("handoff (ms, median)", handoff, "≤ 2 ms", handoff <= 2);
  const contended = r.runtime?.contended ?? [];
  const k1 = contended.find((c) => c.k === 1);
  const k32 = contended.find((c) => c.k === 32);
  add(
    "provider calls, three-line plan on one application (K = 1)",
    k1?.callsPerRun,
    "≤ 4",
    k1?.callsPerRun <= 4,
  );
  const k1Floor = k1 ? k1.wallMs.median / k1.floorMs : undefined;
  add("K = 1 apply wall ÷ its provider-call floor", k1Floor, "≤ 1.5×", k1Floor <= 1.5);
  add(
    "K = 32 contended wall ÷ serial bound (one critical section per run)",
    k32?.wallOverSerialBound,
    "≤ 1.15×",
    k32?.wallOverSerialBound <= 1.15,
  );
  const combinedRatio = k32?.combining?.wallOverK1;
  add("write combining: K = 32 contended wall ÷ K = 1 wall", combinedRatio, "≤ 3×", combinedRatio <= 3);
  const lost = contended.length ? Math.max(...contended.map((c) => c.lost)) : undefined;
  add("entries lost at any K (with locks)", lost, "0", lost === 0);
  const controlLost = contended.filter((c) => c.k > 1).some((c) => c.controlLost.p99 > 0);
  add(
    "control (no parent locks) still loses",
    contended.length ? Number(controlLost) : undefined,
    "yes (1)",
    controlLost,
  );
  const ind = r.runtime?.independent ?? [];
  const i1 = ind.find((c) => c.k === 1)?.wallMs.median;
  const i32 = ind.find((c) => c.k === 32)?.wallMs.median;
  add("independent objects K = 32 ÷ K = 1", i1 ? i32 / i1 : undefined, "≤ 3×", i32 / i1 <= 3);
  const load = r.load;
  add(
    "load: 200 runs, 50 scopes, 10 objects over HTTP, wall ms",
    load?.wallMs,
    `≤ ${LOAD_WALL_BEFORE_MS / 2} (half of ${LOAD_WALL_BEFORE_MS}), no 5xx, 0 lost`,
    load ? load.wallMs <= LOAD_WALL_BEFORE_MS / 2 && load.fiveXx === 0 && load.entriesLost === 0 : false,
  );
  return rows;
}

export function targetTable(r) {
  const num = (x) => (typeof x === "number" ? (Number.isInteger(x) ? String(x) : x.toFixed(2)) : "—");
  const L = ["### Targets (this run)", "", "| what | figure | target | |", "| --- | --- | --- | --- |"];
  for (const t of targetRows(r))
    L.push(
      `| ${t.what} | ${num(t.figure)} | ${t.target} | ${t.met === null ? "not measured" : t.met ? "met" : "missed"} |`,
    );
  L.push("");
  return L.join("\n");
}
