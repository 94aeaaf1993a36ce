import type { Role } from '@bridgekit/contract';
import { ApiError, notFound } from '../api-error';
import type { Deps } from '../deps';
import type { Db } from '../store/db';
import {
  countAdmins,
  deleteMemberRow,
  findMember,
  type MemberWithUser,
  updateMemberRole,
} from '../store/members';
import { findOrganizationForUpdate } from '../store/organizations';
import { memberData, recordEvent } from '../webhooks/events';

const lastAdmin = (change: 'demoted' | 'removed', fields?: Record<string, string>) =>
  new ApiError(
    'Conflict',
    `This member is the last ADMIN of the organization and can't be ${change}: make another member ADMIN first`,
    {
      code: 'last_admin',
      ...(fields && {
        fields: Object.fromEntries(
          Object.entries(fields).map(([f, message]) => [f, { code: 'last_admin', message }]),
        ),
      }),
    },
  );

/**
 * Runs `change` on the member with the organization row locked, so every change to the
 * organization's admins takes its turn: two concurrent demotions of the last two ADMINs can't
 * both see "another ADMIN remains". PostgreSQL: the write lock, then the row `FOR UPDATE`
 * (each statement after the wait sees what the other committed); SQLite: one transaction at a
 * time on the one connection.
 */
function withLockedMember<T>(
  deps: Deps,
  orgId: string,
  memberId: string,
  change: (tx: Db, member: MemberWithUser) => Promise<T>,
): Promise<T> {
  return deps.store.db.transaction().execute(async (tx) => {
    const org = await findOrganizationForUpdate(tx, deps.store.engine, orgId);
    const member = org ? await findMember(tx, orgId, memberId) : undefined;
    if (!member) throw notFound('Member', 'member_not_found');
    return change(tx, member);
  });
}

/** Gives the member `role`; the organization's last ADMIN can't be demoted (409). */
export function setMemberRole(
  deps: Deps,
  orgId: string,
  memberId: string,
  role: Role,
): Promise<MemberWithUser> {
  return withLockedMember(deps, orgId, memberId, async (tx, member) => {
    if (member.role === role) return member;
    if (member.role === 'ADMIN' && (await countAdmins(tx, orgId)) <= 1) {
      throw lastAdmin('demoted', { role: 'The last ADMIN must stay ADMIN' });
    }
    await updateMemberRole(tx, orgId, memberId, role);
    const changed = { ...member, role };
    await recordEvent(
      tx,
      orgId,
      'member.role_changed',
      { ...memberData(changed), previousRole: member.role as Role },
      deps.now(),
    );
    return changed;
  });
}

/** Removes the membership (the user stays); the organization's last ADMIN can't be removed (409). */
export function removeMember(deps: Deps, orgId: string, memberId: string): Promise<MemberWithUser> {
  return withLockedMember(deps, orgId, memberId, async (tx, member) => {
    if (member.role === 'ADMIN' && (await countAdmins(tx, orgId)) <= 1) {
      throw lastAdmin('removed');
    }
    await deleteMemberRow(tx, orgId, memberId);
    await recordEvent(tx, orgId, 'member.removed', memberData(member), deps.now());
    return member;
  });
}
