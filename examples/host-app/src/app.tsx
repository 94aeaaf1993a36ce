import { BridgeProvider, MemberCard } from '@bridgekit/react';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { AdminConsole } from './admin-console';
import { AdminPage } from './admin-page';
import { DataSources } from './data-sources';
import { loadMe, type Me, sessionTokens, signOut } from './host-api';
import { SignIn } from './sign-in';

type Page = 'workspace' | 'admin';

interface HeaderProps {
  me: Me;
  page: Page;
  onPage: (page: Page) => void;
  onSignedOut: () => void;
}

function Header({ me, page, onPage, onSignedOut }: HeaderProps) {
  const role = me.member.role === 'ADMIN' ? 'Admin' : 'Member';
  return (
    <header className="host-header">
      <strong>Example host app</strong>
      <span>
        {me.user.name} · {role} of {me.organization.name}
      </span>
      {me.member.role === 'ADMIN' && (
        <nav aria-label="Pages" className="host-nav">
          <button
            type="button"
            aria-current={page === 'workspace' ? 'page' : undefined}
            onClick={() => onPage('workspace')}
          >
            Workspace
          </button>
          <button
            type="button"
            aria-current={page === 'admin' ? 'page' : undefined}
            onClick={() => onPage('admin')}
          >
            Organization admin
          </button>
        </nav>
      )}
      <button type="button" onClick={() => signOut().then(onSignedOut)}>
        Sign out
      </button>
    </header>
  );
}

/** The signed-in page: what it shows follows the member's role at the bridge. */
function Workspace({ me, onSignedOut }: { me: Me; onSignedOut: () => void }) {
  const getSessionToken = useMemo(() => sessionTokens(), []);
  const isAdmin = me.member.role === 'ADMIN';
  const [page, setPage] = useState<Page>('workspace');
  if (page === 'admin' && isAdmin) {
    return (
      <div className="host" data-role={me.member.role}>
        <Header me={me} page={page} onPage={setPage} onSignedOut={onSignedOut} />
        <BridgeProvider baseUrl={me.bridgeUrl} getSessionToken={getSessionToken} theme="auto">
          <AdminPage orgId={me.organization.id} />
        </BridgeProvider>
      </div>
    );
  }
  return (
    <div className="host" data-role={me.member.role}>
      <Header me={me} page={page} onPage={setPage} onSignedOut={onSignedOut} />
      <BridgeProvider baseUrl={me.bridgeUrl} getSessionToken={getSessionToken} theme="auto">
        <div className="host-layout">
          <aside className="host-panel" aria-labelledby="you-heading">
            <h2 id="you-heading">You</h2>
            <MemberCard orgId={me.organization.id} memberId={me.member.id} />
          </aside>
          <main>
            <DataSources orgId={me.organization.id} canEdit={isAdmin} />
          </main>
        </div>
      </BridgeProvider>
      {isAdmin && <AdminConsole />}
    </div>
  );
}

export function App() {
  const [me, setMe] = useState<Me | null | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const refresh = useCallback(() => {
    loadMe().then(setMe, (e: unknown) => setError(String(e)));
  }, []);
  useEffect(refresh, [refresh]);

  if (error) return <p role="alert">Could not load this app: {error}</p>;
  if (me === undefined) return <p role="status">Loading…</p>;
  if (me === null) return <SignIn onSignedIn={refresh} />;
  return <Workspace key={me.user.email} me={me} onSignedOut={refresh} />;
}
