/**
 * The object page's Capacity section: each capped list's fill level and each repository's share of
 * it (workers/dashboard/object-fills.ts).
 */

import { fillShareWords } from "../../shared/fill-share";
import { NEAR_CAPACITY_SHARE } from "../../shared/schemas/fill-level";
import { formatAgo, formatUtc } from "./format";
import type { FillRow } from "./object-fills";

export function FillLevels({ rows, now }: { rows: FillRow[]; now: number }) {
  return (
    <>
      <h3>Capacity</h3>
      {rows.length === 0 ? (
        <p class="empty">
          No list on this object has a cap (none documented by its provider, none set in its connection's{" "}
          <span class="mono">capacity</span>).
        </p>
      ) : (
        <div class="table-wrap">
          <table class="fills">
            <thead>
              <tr>
                <th>List</th>
                <th>Fill</th>
                <th>Shares</th>
                <th>Seen</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) =>
                r.level === "unmeasured" ? (
                  <tr data-fill-op={r.op} data-fill-level={r.level}>
                    <td class="mono">{r.op}</td>
                    <td class="muted" colspan={3}>
                      not measured yet: recorded after the next write
                    </td>
                  </tr>
                ) : (
                  <tr data-fill-op={r.op} data-fill-list={r.list} data-fill-level={r.level}>
                    <td class="mono">{r.list ? `${r.op} (${r.list})` : r.op}</td>
                    <td class="fill">
                      {/* The browser colours the bar past `low` (the sweep's share) and past `high` (full). */}
                      <meter
                        min={0}
                        max={r.cap}
                        low={r.cap * NEAR_CAPACITY_SHARE}
                        high={Math.max(r.cap * NEAR_CAPACITY_SHARE, r.cap - 0.5)}
                        optimum={0}
                        value={r.entries}
                      />{" "}
                      {`${r.entries} of ${r.cap} · ${r.percent} %`}
                      {r.level === "ok" ? null : (
                        <>
                          {" "}
                          <span class={`badge fill-${r.level}`}>{fillShareWords(r.level)}</span>
                        </>
                      )}
                    </td>
                    <td class="shares">
                      {r.repositories && r.repositories.length > 0
                        ? r.repositories
                            .map((share) => `${share.name ?? "another repository"}: ${share.entries}`)
                            .join(" · ")
                        : "-"}
                    </td>
                    <td class="muted">{`${formatUtc(r.at)} (${formatAgo(r.at, now)})`}</td>
                  </tr>
                ),
              )}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
