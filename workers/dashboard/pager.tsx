/** Previous and next pages of the scope list, keeping the view's filter. */
import { type ViewFilter, viewQuery } from "./view-filter";

export function Pager({ filter, pages }: { filter: ViewFilter; pages: number }) {
  if (pages <= 1) return null;
  const page = Math.min(filter.page, pages);
  return (
    <nav class="pager" aria-label="Scope pages" data-page={page} data-pages={pages}>
      {page > 1 ? (
        <a rel="prev" href={`/dashboard${viewQuery(filter, page - 1)}`}>
          ← newer
        </a>
      ) : null}
      <span class="muted">
        page {page} of {pages}
      </span>
      {page < pages ? (
        <a rel="next" href={`/dashboard${viewQuery(filter, page + 1)}`}>
          older →
        </a>
      ) : null}
    </nav>
  );
}
