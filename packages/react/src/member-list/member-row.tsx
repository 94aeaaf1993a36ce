import type { Member, Role } from '@bridgekit/contract';
import { useId, useState } from 'react';
import { ConfirmDialog } from '../internal/confirm-dialog';
import { errorText, isAdminRequired } from '../internal/error-text';
import { Avatar } from '../member-card/avatar';
import type { BridgeContextValue } from '../provider/bridge-provider';
import type { CoreMessages } from '../provider/messages';
import { refuseAdmin } from '../provider/session-store';
import type { MemberListMessages } from './member-list-messages';
import { nameOf } from './use-members';

export interface MemberRowProps {
  context: BridgeContextValue & { messages: CoreMessages & MemberListMessages };
  unstyled: boolean | undefined;
  orgId: string;
  member: Member;
  /** The signed-in member's own row. */
  self: boolean;
  canEdit: boolean;
  /** The organization's only ADMIN: its role can't change and it can't be removed. */
  soleAdmin: boolean;
  onChanged: (member: Member, said: string) => void;
  onRemoved: (member: Member, said: string) => void;
}

/** Role change and removal; `admin_required` turns the organization read-only instead. */
function useMemberActions(props: MemberRowProps, roleText: (role: Role) => string) {
  const { context, orgId, member } = props;
  const { client, messages } = context;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const name = nameOf(member);
  const refused = (caught: unknown) => {
    if (!isAdminRequired(caught)) return false;
    refuseAdmin(client, orgId);
    return true;
  };

  const changeRole = async (role: Role) => {
    setBusy(true);
    setError(null);
    try {
      const { data } = await client.updateMember({
        params: { orgId, id: member.id },
        body: { role },
      });
      props.onChanged(data, messages.roleChanged(name, roleText(data.role)));
    } catch (caught) {
      if (!refused(caught)) setError(caught);
    } finally {
      setBusy(false);
    }
  };

  const remove = async () => {
    try {
      const { data } = await client.removeMember({ params: { orgId, id: member.id } });
      props.onRemoved(data, messages.memberRemoved(name));
    } catch (caught) {
      if (!refused(caught)) throw caught;
    }
  };

  return { busy, error, changeRole, remove };
}

/** One member: avatar, name and email; for an ADMIN, the role menu and Remove. */
export function MemberRow(props: MemberRowProps) {
  const { context, unstyled, member, self, canEdit, soleAdmin } = props;
  const { messages } = context;
  const noteId = useId();
  const name = nameOf(member);
  const roleText = (role: Role) => (role === 'ADMIN' ? messages.roleAdmin : messages.roleMember);
  const { busy, error, changeRole, remove } = useMemberActions(props, roleText);
  return (
    <li className="bk-member-list__item" data-role={member.role} aria-busy={busy || undefined}>
      <Avatar key={member.user.avatarUrl} name={name} src={member.user.avatarUrl} />
      <span className="bk-member-list__who">
        <span className="bk-member-list__name">
          {name}
          {self && <span className="bk-member-list__you"> ({messages.you})</span>}
        </span>
        {name !== member.user.email && (
          <span className="bk-member-list__email">{member.user.email}</span>
        )}
      </span>
      <span className="bk-member-list__actions">
        {canEdit ? (
          <>
            <select
              className="bk-input bk-member-list__role"
              aria-label={messages.roleOf(name)}
              aria-describedby={soleAdmin ? noteId : undefined}
              value={member.role}
              disabled={soleAdmin || busy}
              onChange={(event) => changeRole(event.currentTarget.value as Role)}
            >
              <option value="ADMIN">{messages.roleAdmin}</option>
              <option value="MEMBER">{messages.roleMember}</option>
            </select>
            <ConfirmDialog
              context={context}
              unstyled={unstyled}
              trigger={{
                label: messages.removeMember,
                name: messages.removeMemberNamed(name),
                className: 'bk-button bk-button--small bk-button--danger',
                ...(soleAdmin ? { describedBy: noteId } : {}),
              }}
              blocked={soleAdmin}
              title={messages.removeMemberTitle}
              description={messages.removeMemberDescription(name)}
              confirm={messages.removeMemberConfirm}
              busyText={messages.removingMember}
              failedText={messages.removeMemberFailed}
              onConfirm={remove}
            />
          </>
        ) : (
          <span className="bk-badge" data-role={member.role}>
            {roleText(member.role)}
          </span>
        )}
      </span>
      {canEdit && soleAdmin && (
        <p id={noteId} className="bk-member-list__note">
          {messages.lastAdmin}
        </p>
      )}
      {error !== null && (
        <p className="bk-alert bk-member-list__note" role="alert">
          {errorText(error, messages, messages.roleChangeFailed)}
        </p>
      )}
    </li>
  );
}
