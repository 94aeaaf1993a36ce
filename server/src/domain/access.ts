import { ApiError, forbidden } from '../api-error';
import type { Deps, Principal } from '../deps';
import { findOrganizationForUser, type OrganizationWithRole } from '../store/organizations';

/**
 * The organization as the caller sees it. Absent, not a member, or outside an embed session's
 * one organization all answer 404, so existence is never revealed.
 */
export async function orgAccess(
  deps: Deps,
  principal: Principal,
  orgId: string,
): Promise<OrganizationWithRole> {
  if (principal.kind === 'session') {
    if (principal.orgId !== orgId) throw orgNotFound();
    return principal.org;
  }
  const org = await findOrganizationForUser(deps.store.db, orgId, principal.userId);
  if (!org) throw orgNotFound();
  return org;
}

export const orgNotFound = () =>
  new ApiError('NotFound', 'Organization not found', { code: 'organization_not_found' });

export function requireAdmin(org: OrganizationWithRole) {
  if (org.role !== 'ADMIN')
    throw forbidden('Only an ADMIN of the organization can do this', 'admin_required');
}
