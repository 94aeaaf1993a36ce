import type { BridgeClient } from '@bridgekit/client';
import type { Member } from '@bridgekit/contract';
import { useCallback } from 'react';
import { useListPages } from '../internal/use-list-pages';

/** The organization's members, keyset-paginated, kept in step with the list's own writes. */
export function useMembers(client: BridgeClient, orgId: string, pageSize: number) {
  const fetchPage = useCallback(
    (cursor: string | null, signal: AbortSignal) =>
      client.listMembers({
        params: { orgId },
        query: { limit: String(pageSize), ...(cursor ? { cursor } : {}) },
        signal,
      }),
    [client, orgId, pageSize],
  );
  return useListPages<Member>(fetchPage);
}

/** What the list shows as a member's name. */
export const nameOf = (member: Member) =>
  member.user.fullName || member.user.firstName || member.user.email;
