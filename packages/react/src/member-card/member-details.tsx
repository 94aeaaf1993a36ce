import type { Member } from '@bridgekit/contract';
import type { ProviderMessages } from '../provider/messages';
import { Avatar } from './avatar';

interface MemberDetailsProps {
  member: Member;
  /** Id of the name, which labels the card. */
  nameId: string;
  messages: ProviderMessages;
}

/** What the card shows of a member: avatar, name, title, email, badges, membership date. */
export function MemberDetails({ member, nameId, messages }: MemberDetailsProps) {
  const { user } = member;
  const name = user.fullName || user.firstName || user.email;
  return (
    <>
      <Avatar key={user.avatarUrl} name={name} src={user.avatarUrl} />
      <div className="bk-member-card__body">
        <p id={nameId} className="bk-member-card__name">
          {name}
        </p>
        {user.title && <p className="bk-member-card__title">{user.title}</p>}
        <a className="bk-member-card__email" href={`mailto:${user.email}`}>
          {user.email}
        </a>
        <p className="bk-member-card__badges">
          <span className="bk-badge" data-role={member.role}>
            {member.role === 'ADMIN' ? messages.roleAdmin : messages.roleMember}
          </span>
          {user.isEmailVerified && (
            <span className="bk-badge" data-variant="verified">
              {messages.emailVerified}
            </span>
          )}
        </p>
        <p className="bk-member-card__since">
          <time dateTime={member.createdAt}>{messages.memberSince(member.createdAt)}</time>
        </p>
      </div>
    </>
  );
}
