import type { Member } from '@bridgekit/contract';
import { type ComponentPropsWithoutRef, forwardRef, useId, useSyncExternalStore } from 'react';
import { errorText, isNotFound } from '../internal/error-text';
import { rootProps } from '../internal/root-props';
import { useResource } from '../internal/use-resource';
import { type BridgeContextValue, useBridgeContext } from '../provider/bridge-provider';
import { SERVER_SNAPSHOT, sessionStoreOf } from '../provider/session-store';
import { MemberDetails } from './member-details';

type Source =
  | { member: Member; orgId?: undefined; memberId?: undefined }
  | { orgId: string; memberId: string; member?: undefined };

export type MemberCardProps = Source &
  Omit<ComponentPropsWithoutRef<'article'>, 'children'> & {
    /** Leave out the kit's styles for this component. */
    unstyled?: boolean | undefined;
  };

/**
 * `member` with the role the session currently reports when it is the session's own member (a
 * role change learned after the card loaded). Reads the session only if another part of the
 * provider loaded it: a card alone makes no session request.
 */
function useSessionRole(context: BridgeContextValue, member: Member | undefined) {
  const session = sessionStoreOf(context.client);
  const { state } = useSyncExternalStore(
    session.subscribe,
    session.getSnapshot,
    () => SERVER_SNAPSHOT,
  );
  const own = state.status === 'ready' ? state.session.member : null;
  return member && own?.id === member.id && own.organizationId === member.organizationId
    ? { ...member, role: own.role }
    : member;
}

/**
 * A member's avatar, name, title, email, role and verification, and membership date.
 * Loads the member by `orgId` + `memberId`, or shows the `member` it is given.
 *
 * @example
 * <MemberCard orgId="org_123" memberId="mem_456" />
 */
export const MemberCard = /* @__PURE__ */ forwardRef<HTMLElement, MemberCardProps>(
  function MemberCard(props, ref) {
    const { member: given, orgId, memberId, unstyled, className, ...rest } = props;
    const context = useBridgeContext('MemberCard');
    const { client, messages } = context;
    const nameId = useId();
    const key = given || !orgId || !memberId ? null : `${orgId}/${memberId}`;
    const loaded = useResource(key, (signal) =>
      client.getMember({ params: { orgId: orgId ?? '', id: memberId ?? '' }, signal }),
    );
    const member = useSessionRole(context, given ?? loaded.data?.data);
    const state = member
      ? 'ready'
      : loaded.status === 'error'
        ? isNotFound(loaded.error)
          ? 'not-found'
          : 'error'
        : 'loading';
    const root = {
      ...rest,
      ...rootProps(context, 'member-card', unstyled, className, rest.style),
      ref,
      'data-state': state,
    };

    if (!member) {
      if (state === 'loading') {
        return (
          <article {...root} aria-busy="true" aria-label={messages.memberLoading}>
            <span className="bk-avatar bk-skeleton" />
            <span className="bk-member-card__body">
              <span className="bk-skeleton bk-skeleton--line" />
              <span className="bk-skeleton bk-skeleton--line bk-skeleton--short" />
            </span>
          </article>
        );
      }
      return (
        <article {...root} aria-labelledby={nameId}>
          <p id={nameId} className="bk-member-card__message" role="alert">
            {state === 'not-found'
              ? messages.memberNotFound
              : errorText(loaded.error, messages, messages.memberLoadFailed)}
          </p>
          {state === 'error' && (
            <button type="button" className="bk-button" onClick={loaded.retry}>
              {messages.retry}
            </button>
          )}
        </article>
      );
    }

    return (
      <article {...root} aria-labelledby={nameId}>
        <MemberDetails member={member} nameId={nameId} messages={messages} />
      </article>
    );
  },
);
