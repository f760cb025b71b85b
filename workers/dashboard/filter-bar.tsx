/**
 * The view's filter as a GET form: repository (not offered to a caller bound to one), environment
 * and a scope prefix. Submitting it reloads the page with the query; the live fragment keeps it.
 */
import type { RepositoryRef } from "../../shared/schemas/repository";
import type { ViewFilter } from "./view-filter";

export interface FilterBarProps {
  filter: ViewFilter;
  repositories: RepositoryRef[];
  environments: string[];
}

export function FilterBar({ filter, repositories, environments }: FilterBarProps) {
  return (
    <form class="filter" method="get" action="/dashboard" aria-label="Filter scopes">
      {filter.bound ? (
        <span class="mono repository">{filter.repository?.name}</span>
      ) : (
        <label>
          Repository{" "}
          <select name="repository">
            <option value="">all</option>
            {repositories.map((r) => (
              <option value={r.name} selected={filter.repository?.id === r.id}>
                {r.name}
              </option>
            ))}
          </select>
        </label>
      )}
      <label>
        Environment{" "}
        <select name="environment">
          <option value="">all</option>
          {environments.map((e) => (
            <option value={e} selected={filter.environment === e}>
              {e}
            </option>
          ))}
        </select>
      </label>
      <label>
        Scope <input name="scope" value={filter.scope ?? ""} placeholder="pr-12, branch-…" maxlength={200} />
      </label>
      <button type="submit">Show</button>
      {filter.environment || filter.scope || (filter.repository && !filter.bound) ? (
        <a href="/dashboard">clear</a>
      ) : null}
    </form>
  );
}
