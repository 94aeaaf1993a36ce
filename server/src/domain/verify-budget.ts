import type { Deps, Principal } from '../deps';
import { findHostUserId } from '../store/members';

/**
 * The person a verify (or a health check) is counted against, next to its organization. For an
 * API key it is the key's user. For a session it is the host account behind the organization,
 * not the signed-in email: a host signs tokens for any email it likes, so identities cost it
 * nothing, and one key over many organizations and all the SSO identities minted in them shares
 * one budget. An organization no key holder belongs to has only its own counter.
 */
async function personOf(deps: Deps, principal: Principal, orgId: string) {
  if (principal.kind === 'apiKey') return principal.userId;
  return findHostUserId(deps.store.db, orgId);
}

/** Counts one verify against the organization and the person; the verdict of the tighter budget. */
export async function chargeVerify(deps: Deps, principal: Principal, orgId: string) {
  const person = await personOf(deps, principal, orgId);
  const keys = [`verify:${orgId}`];
  if (person !== undefined) keys.push(`verify-user:${person}`);
  return deps.limits.verify.hitEach(keys);
}
