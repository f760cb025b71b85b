/** How runs, ledgers and locks read on a terminal and in CI logs: plain lines, no colours needed. */
import { holdingText } from "../shared/holding-text";
import type { LockState, Receipt, RunEvent, RunResult, ScopeSummary } from "./client";

type LineResult = RunResult["lines"][number];

const MARKS: Record<LineResult["result"], string> = {
  created: "+",
  shared: "&",
  foreign: "=",
  removed: "-",
  released: "-&",
  unchanged: "=",
  "would-create": "~+",
  "would-remove": "~-",
  skipped: "·",
  failed: "x",
  "rolled-back": "<",
};

/** `preview/pr-1 in acme/web`: a scope belongs to one repository (older services do not say which). */
export function scopeName(scope: {
  repository?: { name: string } | undefined;
  environment: string;
  scope: string;
}): string {
  const where = `${scope.environment}/${scope.scope}`;
  return scope.repository ? `${where} in ${scope.repository.name}` : where;
}

export function lineText(line: LineResult): string {
  // A line the run never reached says why instead of an error.
  const error = line.error
    ? ` (${line.error.code}: ${line.error.message})`
    : line.reason
      ? ` (${line.reason})`
      : "";
  return `  ${MARKS[line.result].padEnd(2)} ${line.id}  ${line.op}  ${line.result}  ${line.key}${error}`;
}

/** One printed line per event; `null` for events that print nothing of their own. */
export function eventText(event: RunEvent): string | null {
  switch (event.type) {
    case "run":
      return `${event.run.action} ${scopeName(event.run)} (run ${event.run.id})`;
    case "line":
      return lineText(event.line);
    case "drift":
      return `  ! drift: ${event.drift.line} ${event.drift.key} is ${event.drift.kind} at the provider`;
    case "warning":
      return `  warning: ${event.message}`;
    case "result":
      return resultText(event.result);
    case "error":
      return `error: ${event.error.code}: ${event.error.message}`;
    case "keepalive":
      return null;
  }
}

export function counts(result: RunResult): string {
  const tally = new Map<string, number>();
  for (const line of result.lines) tally.set(line.result, (tally.get(line.result) ?? 0) + 1);
  return [...tally].map(([outcome, n]) => `${n} ${outcome}`).join(", ") || "no lines";
}

export function resultText(result: RunResult): string {
  const seconds = ((result.run.finishedAt - result.run.startedAt) / 1000).toFixed(1);
  const error = result.run.error ? ` (${result.run.error.code}: ${result.run.error.message})` : "";
  return `${result.run.status} in ${seconds}s: ${counts(result)}${error}`;
}

const ms = (value: number) => `${value} ms`;

/**
 * `--verbose`: where the run's time went and the calls it made, after the outcome. Parts are each
 * the wall time some call of that kind was in flight, so they need not add up to the total.
 */
export function timingsText(result: RunResult): string[] {
  const { timings: t, counts: n } = result;
  if (!t || !n) return ["timings: not reported by this service"];
  return [
    `timings: total ${ms(t.total)}; authorization ${ms(t.authorization)}, scope lock ${ms(t.scopeLockWait)}, parent locks ${ms(t.parentLockWait)}, provider ${ms(t.provider)}, storage ${ms(t.storage)}`,
    `counts: ${n.providerCalls} provider calls, ${n.lockOps} lock operations, ${n.storageReads} storage reads, ${n.storageWrites} storage writes`,
  ];
}

/** The whole run after the fact (the server answered JSON, not a stream). */
export function runText(result: RunResult): string[] {
  const { run } = result;
  return [
    `${run.action} ${scopeName(run)} (run ${run.id})`,
    ...result.lines.map(lineText),
    ...result.drift.map((d) => `  ! drift: ${d.line} ${d.key} is ${d.kind} at the provider`),
    ...result.warnings.map((w) => `  warning: ${w}`),
    resultText(result),
  ];
}

function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const format = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  return [format(header), ...rows.map(format)];
}

const iso = (ms: number | null) => (ms === null ? "-" : new Date(ms).toISOString().replace(/\.\d+Z$/, "Z"));

export function ledgerText(receipt: Receipt): string[] {
  const out = [
    `${scopeName(receipt)}: revision ${receipt.revision}, ${receipt.ledger.length} entries, ${receipt.intents.length} open intents`,
  ];
  if (receipt.ledger.length > 0) {
    out.push(
      "",
      ...table(
        ["LINE", "OP", "KEY", "HOLDING", "PARENT", "RUN"],
        receipt.ledger.map((e) => [e.line, e.op, e.key, holdingText(e), e.parent ?? "-", e.runId]),
      ),
    );
  }
  if (receipt.intents.length > 0) {
    out.push("", "Open intents:", ...receipt.intents.map((i) => `  ${i.action} ${i.key} (run ${i.runId})`));
  }
  if (receipt.runs.length > 0) {
    out.push(
      "",
      ...table(
        ["RUN", "ACTION", "STATUS", "FINISHED", "CREATED", "ERROR"],
        [...receipt.runs]
          .reverse()
          .map((r) => [
            r.id,
            r.action,
            r.status,
            iso(r.finishedAt),
            String(r.created.length),
            r.error?.code ?? "",
          ]),
      ),
    );
  }
  return out;
}

export function scopesText(scopes: ScopeSummary[]): string[] {
  if (scopes.length === 0) return ["no scope has a receipt"];
  return table(
    ["REPOSITORY", "ENVIRONMENT", "SCOPE", "ENTRIES", "UPDATED"],
    scopes.map((s) => [s.repository.name, s.environment, s.scope, String(s.entries), iso(s.uploadedAt)]),
  );
}

function expiresIn(lock: LockState, now: number): string {
  if (lock.expiresAt === null) return "-";
  return `${Math.max(0, Math.round((lock.expiresAt - now) / 1000))}s`;
}

export function locksText(locks: LockState[], now: number): string[] {
  if (locks.length === 0) return ["no lock is held"];
  return table(
    ["KEY", "KIND", "IDENTITY", "HOLDER", "SINCE", "EXPIRES IN", "WAITERS"],
    locks.map((l) => [
      l.key,
      l.kind,
      l.identity ?? "-",
      l.holder ?? (l.hold ? "(on hold)" : "-"),
      iso(l.since),
      expiresIn(l, now),
      String(l.waiters.length),
    ]),
  );
}

export function lockText(lock: LockState, now: number): string[] {
  const out = [
    `${lock.key} (${lock.kind}${lock.identity ? `: ${lock.identity}` : ""})`,
    lock.held
      ? `held by ${lock.holder} since ${iso(lock.since)}, expires in ${expiresIn(lock, now)}, token ${lock.token}`
      : "not held",
  ];
  if (lock.hold) {
    out.push(`on hold until ${iso(lock.hold.until)}, set by ${lock.hold.by}: ${lock.hold.reason}`);
  }
  if (lock.waiters.length > 0) out.push(`waiters: ${lock.waiters.map((w) => w.holder).join(", ")}`);
  if (lock.history.length > 0) {
    out.push(
      "",
      ...table(
        ["AT", "TRANSITION", "HOLDER", "TOKEN", "NOTE"],
        lock.history.map((h) => [iso(h.at), h.transition, h.holder, String(h.token), h.note ?? ""]),
      ),
    );
  }
  return out;
}
