/**
 * The config panel's platform connections (SPONSON_PLATFORMS): which Vercel project or Netlify site
 * registers which repository's previews in which environment, and what it lacks. Names only.
 */
import type { PlatformStatus } from "../config/platform-check";

const PLATFORM_NAMES = { vercel: "Vercel project", netlify: "Netlify site" } as const;

export function PlatformsTable({ platforms }: { platforms: readonly PlatformStatus[] }) {
  if (platforms.length === 0) return null;
  return (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th>Platform connection</th>
            <th>Deploys of</th>
            <th>Repository</th>
            <th>Environment</th>
            <th>Registers</th>
            <th>Missing secrets</th>
          </tr>
        </thead>
        <tbody>
          {platforms.map((p) => (
            <tr data-platform={p.name} data-valid={String(p.valid)}>
              <td class="mono">{p.name}</td>
              <td>
                {PLATFORM_NAMES[p.platform]} <span class="mono">{p.target}</span>
              </td>
              <td>{p.repository}</td>
              <td>{p.environment}</td>
              <td>{p.url === "branch" ? "the stable branch URL" : "each deployment's URL"}</td>
              <td class="mono">{p.missingSecrets.join(", ") || "—"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
