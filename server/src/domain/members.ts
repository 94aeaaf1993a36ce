import type { AddMemberBody, Role } from '@bridgekit/contract';
import { ApiError } from '../api-error';
import type { Deps } from '../deps';
import { addMembership, type MemberWithUser } from '../store/members';
import { memberData, recordEvent } from '../webhooks/events';
import { newId } from './ids';

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

/** Adds a member by email, creating the user when new; 409 when already a member. */
export async function addMember(
  deps: Deps,
  orgId: string,
  body: AddMemberBody,
): Promise<MemberWithUser> {
  const at = deps.now().toISOString();
  const added = await addMembership(
    deps.store.db,
    { id: newId('usr'), email: normalizeEmail(body.email), createdAt: at },
    {
      id: newId('mem'),
      organizationId: orgId,
      role: body.role satisfies Role,
      groups: null,
      createdAt: at,
    },
    (tx, member) => recordEvent(tx, orgId, 'member.added', memberData(member), deps.now()),
  );
  if (!added) throw new Error('organization vanished while adding a member');
  if (!added.created) {
    throw new ApiError('Conflict', 'That user is already a member of this organization', {
      code: 'already_member',
      fields: { email: { code: 'already_member', message: 'Already a member' } },
    });
  }
  return added.member;
}
