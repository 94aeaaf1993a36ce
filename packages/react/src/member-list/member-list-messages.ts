/** `MemberList`'s strings: it adds them under the provider's messages itself. */
export const memberListMessages = {
  membersTitle: 'Members',
  membersLoading: 'Loading members…',
  membersEmpty: 'No members yet.',
  membersLoadFailed: 'The members could not be loaded.',
  membersReadOnly: 'Only admins of this organization can change its members.',
  you: 'you',
  /** The accessible name of a member's role menu: "Role of Ada Lovelace". */
  roleOf: (name: string) => `Role of ${name}`,
  roleChanged: (name: string, role: string) => `${name} is now ${role}.`,
  roleChangeFailed: 'The role could not be changed.',
  lastAdmin:
    'The only admin: make another member an admin before changing this role or removing them.',
  removeMember: 'Remove',
  removeMemberNamed: (name: string) => `Remove ${name}`,
  removeMemberTitle: 'Remove member?',
  removeMemberDescription: (name: string) =>
    `${name} will lose access to this organization and its data sources.`,
  removeMemberConfirm: 'Remove member',
  removingMember: 'Removing…',
  memberRemoved: (name: string) => `${name} was removed.`,
  removeMemberFailed: 'The member could not be removed.',
  addMemberTitle: 'Add a member',
  addMemberEmail: 'Email',
  addMemberRole: 'Role',
  addMember: 'Add member',
  addingMember: 'Adding…',
  memberAdded: (email: string) => `${email} was added.`,
  addMemberFailed: 'The member could not be added.',
  emailRequired: 'Enter an email address',
};

export type MemberListMessages = typeof memberListMessages;
