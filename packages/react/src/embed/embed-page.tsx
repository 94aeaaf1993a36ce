import { DataSourceList } from '../data-source-list/data-source-list';
import { MemberCard } from '../member-card/member-card';
import type { ColorScheme as Theme } from '../provider/theme';
import { embedMessages as text } from './embed-messages';

interface EmbedPageProps {
  orgId: string;
  memberId: string;
  orgName: string;
  /** `hide_org_name=true`: the heading stays for screen readers only. */
  hideOrgName: boolean;
  theme: Theme;
}

/**
 * The page inside `BridgeProvider`, built from the kit's public components only: the data
 * sources (`DataSourceList`, with `DataSourceForm` and `SchemaBrowser`) and the member.
 */
export function EmbedPage({ orgId, memberId, orgName, hideOrgName, theme }: EmbedPageProps) {
  return (
    <div className="bk bk-embed" data-bk-theme={theme}>
      <header className={hideOrgName ? 'bk-visually-hidden' : 'bk-embed__header'}>
        <h1>{orgName}</h1>
      </header>
      <div className="bk-embed__layout">
        <main className="bk-embed__main">
          <DataSourceList orgId={orgId} />
        </main>
        <aside className="bk-embed__aside" aria-label={text.signedInAs}>
          <MemberCard orgId={orgId} memberId={memberId} />
        </aside>
      </div>
    </div>
  );
}
