import type { AddMemberBody, Role } from '@bridgekit/contract';
import { ApiError } from '../api-error';
import type { Deps } from '../deps';
import { isUniqueViolation } from '../store/db';
import { findMemberByUser, insertMember, type MemberWithUser } from '../store/members';
import { ensureUser } from '../store/users';
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
  const { user } = await ensureUser(deps.store.db, {
    id: newId('usr'),
    email: normalizeEmail(body.email),
    createdAt: at,
  });
  let member: MemberWithUser | undefined;
  try {
    member = await deps.store.db.transaction().execute(async (tx) => {
      await insertMember(tx, {
        id: newId('mem'),
        organizationId: orgId,
        userId: user.id,
        role: body.role satisfies Role,
        groups: null,
        createdAt: at,
      });
      const added = await findMemberByUser(tx, orgId, user.id);
      if (added) await recordEvent(tx, orgId, 'member.added', memberData(added), deps.now());
      return added;
    });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    throw new ApiError('Conflict', 'That user is already a member of this organization', {
      code: 'already_member',
      fields: { email: { code: 'already_member', message: 'Already a member' } },
    });
  }
  if (!member) throw new Error('member vanished after insert');
  return member;
}
