import { DataSourceList, MemberList, OrganizationSettings } from '@bridgekit/react';

/**
 * The customers' admin page, built from the kit's lifecycle components only: the
 * organization's settings (name, slug, AI context, full embed and its allowed origins), its
 * members (roles, removal, invitations by email) and its data sources (health, sync, schema).
 * It sits inside the signed-in member's `BridgeProvider`; each component reads the member's
 * role from the bridge, so a MEMBER who opened it would see everything read-only. Rotating the
 * SSO secret needs an API-key client (this app's `/bridge` proxy): this page leaves it out, as
 * this app's backend reads the secret once at start.
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
