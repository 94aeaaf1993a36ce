import { createProxyClient } from '@bridgekit/client';
import type { Organization } from '@bridgekit/contract';
import { BridgeProvider, OrgPicker } from '@bridgekit/react';
import { useState } from 'react';

// The proxy on this app's backend (createProxyHandler, its default read-only routes) adds its
// API key; the page sends no token of its own.
const proxyClient = createProxyClient({ baseUrl: `${window.location.origin}/bridge` });

/** Every organization of this host's API key, listed through the backend's `/bridge` proxy. */
export function AdminConsole() {
  const [picked, setPicked] = useState<Organization | null>(null);
  return (
    <section aria-labelledby="admin-console-heading" className="host-panel">
      <h2 id="admin-console-heading">Admin console</h2>
      <BridgeProvider client={proxyClient}>
        <OrgPicker onValueChange={(_id, org) => setPicked(org)} />
      </BridgeProvider>
      {picked && (
        <p data-testid="picked-org">
          {picked.name} ({picked.slug}), full embed {picked.fullEmbedEnabled ? 'on' : 'off'}
        </p>
      )}
    </section>
  );
}
