import { DataSourceList, MemberList, OrganizationSettings } from '@bridgekit/react';

/**
 * The customers' admin page, built from the kit's lifecycle components only: the
 * organization's settings (name and AI context editable; slug, full embed and allowed origins
 * shown read-only), its members (roles, removal, invitations by email) and its data sources
 * (health, sync, schema). It sits inside the signed-in member's `BridgeProvider`; each component
 * reads the member's role from the bridge, so a MEMBER who opened it would see everything
 * read-only. The host settings, SSO secret rotation and deletion need an API-key client (this
 * app's `/bridge` proxy); `OrganizationSettings` offers them only there.
 */
export function AdminPage({ orgId }: { orgId: string }) {
  return (
    <div className="host-admin">
      <OrganizationSettings orgId={orgId} />
      <MemberList orgId={orgId} />
      <DataSourceList orgId={orgId} />
    </div>
  );
}
