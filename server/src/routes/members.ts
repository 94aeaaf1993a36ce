import { routes } from '@bridgekit/contract';
import type { RequestHandler, Router } from 'express';
import { forbidden, notFound } from '../api-error';
import type { Deps } from '../deps';
import { orgAccess, requireAdmin } from '../domain/access';
import { removeMember, setMemberRole } from '../domain/member-changes';
import { addMember } from '../domain/members';
import { DEFAULT_LIMIT, toPage } from '../domain/pagination';
import { toMember } from '../domain/serialize';
import { mountJson } from '../http/route';
import { findMember, listMembers } from '../store/members';

export function memberRoutes(
  router: Router,
  deps: Deps,
  mw: { auth: RequestHandler; body: RequestHandler },
) {
  mountJson(router, routes.listMembers, mw, async ({ principal, params, query }) => {
    const org = await orgAccess(deps, principal, params.orgId);
    const limit = query.limit ?? DEFAULT_LIMIT;
    const rows = await listMembers(deps.store.db, org.id, { cursor: query.cursor, limit });
    return toPage(rows, limit, toMember);
  });

  mountJson(router, routes.addMember, mw, async ({ principal, params, body }) => {
    const org = await orgAccess(deps, principal, params.orgId);
    requireAdmin(org);
    return { data: toMember(await addMember(deps, org.id, body)) };
  });

  mountJson(router, routes.getMember, mw, async ({ principal, params }) => {
    const org = await orgAccess(deps, principal, params.orgId);
    const member = await findMember(deps.store.db, org.id, params.id);
    if (!member) throw notFound('Member', 'member_not_found');
    return { data: toMember(member) };
  });

  mountJson(router, routes.updateMember, mw, async ({ principal, params, body }) => {
    const org = await orgAccess(deps, principal, params.orgId);
    requireAdmin(org);
    return { data: toMember(await setMemberRole(deps, org.id, params.id, body.role)) };
  });

  mountJson(router, routes.removeMember, mw, async ({ principal, params }) => {
    const org = await orgAccess(deps, principal, params.orgId);
    const member = await findMember(deps.store.db, org.id, params.id);
    if (!member) throw notFound('Member', 'member_not_found');
    // A member may leave on its own; removing anyone else takes an ADMIN.
    if (member.userId !== principal.userId && org.role !== 'ADMIN') {
      throw forbidden(
        'Only an ADMIN of the organization can remove another member',
        'admin_required',
      );
    }
    return { data: toMember(await removeMember(deps, org.id, params.id)) };
  });
}
