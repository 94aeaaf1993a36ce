import { errorText } from '../internal/error-text';
import type { CoreMessages } from '../provider/messages';
import type { OrgPickerMessages } from './org-picker-messages';
import type { OrgPages } from './use-org-pages';

export type OrgListState = 'error' | 'loading' | 'empty' | 'ready';

/** The body's `data-state`: `error` and `loading` only while nothing is listed yet. */
export function listState(pages: OrgPages, visibleCount: number): OrgListState {
  const firstLoad = pages.items.length === 0;
  if (pages.status === 'error' && firstLoad) return 'error';
  if ((pages.status === 'loading' || pages.status === 'idle') && firstLoad) return 'loading';
  return visibleCount === 0 ? 'empty' : 'ready';
}

interface OrgListStatusProps {
  pages: OrgPages;
  state: OrgListState;
  query: string;
  messages: CoreMessages & OrgPickerMessages;
}

/** What goes below the list: no results, a failed load with Retry, progress, "Load more". */
export function OrgListStatus({ pages, state, query, messages }: OrgListStatusProps) {
  const firstLoad = pages.items.length === 0;
  return (
    <>
      {state === 'empty' && (
        <p className="bk-org-picker__message">
          {query.trim() ? messages.orgsNoMatch(query.trim()) : messages.orgsEmpty}
        </p>
      )}
      {pages.status === 'error' && (
        <div className="bk-org-picker__message" role="alert">
          <p>{errorText(pages.error, messages, messages.orgsLoadFailed)}</p>
          <button type="button" className="bk-button" onClick={pages.load}>
            {messages.retry}
          </button>
        </div>
      )}
      <p className="bk-org-picker__status" role="status">
        {pages.status === 'loading'
          ? firstLoad
            ? messages.orgsLoading
            : messages.loadingMore
          : ''}
      </p>
      {pages.hasMore && pages.status === 'ready' && (
        <button type="button" className="bk-button bk-org-picker__more" onClick={pages.load}>
          {messages.loadMore}
        </button>
      )}
    </>
  );
}
