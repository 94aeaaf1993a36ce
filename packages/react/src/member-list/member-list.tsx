import type { Member } from '@bridgekit/contract';
import { type ComponentPropsWithoutRef, forwardRef, useId, useState } from 'react';
import { errorText } from '../internal/error-text';
import { rootProps } from '../internal/root-props';
import { useComponentContext } from '../internal/use-component-context';
import type { CoreMessages } from '../provider/messages';
import { useAccess, useSessionSnapshot } from '../provider/use-access';
import { AddMemberForm } from './add-member-form';
import { type MemberListMessages, memberListMessages } from './member-list-messages';
import { MemberRow } from './member-row';
import { useMembers } from './use-members';

interface FirstPageStateProps {
  pages: ReturnType<typeof useMembers>;
  messages: CoreMessages & MemberListMessages;
}

/** Before any member is listed: loading, a failure with Retry, or none. */
function FirstPageState({ pages, messages }: FirstPageStateProps) {
  if (pages.status === 'loading') {
    return (
      <p className="bk-member-list__status" role="status">
        {messages.membersLoading}
      </p>
    );
  }
  if (pages.status === 'error') {
    return (
      <div className="bk-alert" role="alert">
        <p>{errorText(pages.error, messages, messages.membersLoadFailed)}</p>
        <button type="button" className="bk-button" onClick={pages.load}>
          {messages.retry}
        </button>
      </div>
    );
  }
  return <p className="bk-member-list__status">{messages.membersEmpty}</p>;
}

export type MemberListProps = Omit<ComponentPropsWithoutRef<'section'>, 'children'> & {
  orgId: string;
  /** Members per page (1–100). Default 50. */
  pageSize?: number | undefined;
  /** After a member was added, had their role changed, or was removed. */
  onMembersChange?:
    | ((change: { type: 'added' | 'updated' | 'removed'; member: Member }) => void)
    | undefined;
  /** Leave out the kit's styles for this component. */
  unstyled?: boolean | undefined;
};

/**
 * The organization's members, a page at a time. An ADMIN changes roles, removes members (after
 * a confirmation) and adds members by email; the organization's only ADMIN can be neither
 * demoted nor removed, and the row says so. A MEMBER sees the list read-only. The role comes
 * from the bridge's session.
 *
 * @example
 * <MemberList orgId={orgId} />
 */
export const MemberList = /* @__PURE__ */ forwardRef<HTMLElement, MemberListProps>(
  function MemberList(props, ref) {
    const { orgId, pageSize = 50, onMembersChange, unstyled, className, ...rest } = props;
    const context = useComponentContext('MemberList', memberListMessages);
    const { client, messages } = context;
    const access = useAccess(context, orgId);
    const { state: session } = useSessionSnapshot(context);
    const selfId = session.status === 'ready' ? session.session.member.id : null;
    const pages = useMembers(client, orgId, pageSize);
    const [notice, setNotice] = useState('');
    const titleId = useId();
    const canEdit = access.status === 'ready' && access.canEdit;
    const admins = pages.items.filter((member) => member.role === 'ADMIN').length;
    const firstLoad = pages.items.length === 0;
    const state = firstLoad && pages.status !== 'ready' ? pages.status : 'ready';

    const changed = (type: 'added' | 'updated', member: Member, said: string) => {
      pages.upsert(member);
      setNotice(said);
      onMembersChange?.({ type, member });
    };
    const removed = (member: Member, said: string) => {
      pages.remove(member.id);
      setNotice(said);
      onMembersChange?.({ type: 'removed', member });
    };

    return (
      <section
        {...rest}
        {...rootProps(context, 'member-list', unstyled, className, rest.style)}
        ref={ref}
        aria-labelledby={titleId}
        data-state={state}
      >
        <h2 id={titleId} className="bk-member-list__title">
          {messages.membersTitle}
        </h2>
        <p className="bk-member-list__notice" role="status">
          {notice}
        </p>
        {access.status === 'ready' && !canEdit && (
          <p className="bk-notice">{messages.membersReadOnly}</p>
        )}
        {canEdit && (
          <AddMemberForm
            context={context}
            orgId={orgId}
            onAdded={(member, said) => changed('added', member, said)}
          />
        )}
        {firstLoad ? (
          <FirstPageState pages={pages} messages={messages} />
        ) : (
          <ul className="bk-member-list__list" aria-labelledby={titleId}>
            {pages.items.map((member) => (
              <MemberRow
                key={member.id}
                context={context}
                unstyled={unstyled}
                orgId={orgId}
                member={member}
                self={member.id === selfId}
                canEdit={canEdit}
                soleAdmin={member.role === 'ADMIN' && admins === 1 && !pages.hasMore}
                onChanged={(next, said) => changed('updated', next, said)}
                onRemoved={removed}
              />
            ))}
          </ul>
        )}
        {!firstLoad && pages.status === 'error' && (
          <p className="bk-alert" role="alert">
            {errorText(pages.error, messages, messages.membersLoadFailed)}
          </p>
        )}
        {!firstLoad && pages.hasMore && (
          <button
            type="button"
            className="bk-button"
            onClick={pages.load}
            aria-disabled={pages.status === 'loading' || undefined}
          >
            {pages.status === 'loading' ? messages.loadingMore : messages.loadMore}
          </button>
        )}
      </section>
    );
  },
);
