import { createHash, randomBytes } from 'node:crypto';
import { ApiError, forbidden } from '../api-error';
import type { Deps } from '../deps';
import { insertHandoff, recordHandoffSession, redeemHandoff } from '../store/embed-handoffs';
import type { MemberWithUser } from '../store/members';
import { findMember } from '../store/members';
import { revokeSession } from '../store/sessions';
import { issueSession } from './exchange';
import { liveSession } from './session-access';

/** How long the embed page has to redeem its code after the sign-in redirect. */
export const HANDOFF_TTL_SECONDS = 30;

const CODE_BYTES = 32;
const CODE_SHAPE = /^[A-Za-z0-9_-]{43}$/;

const hashOf = (code: string) => createHash('sha256').update(code).digest('base64url');

const invalidCode = () =>
  new ApiError('Unauthorized', 'Invalid or expired sign-in code', { code: 'embed_code_invalid' });

/**
 * A single-use code for the member's full-embed sign-in, framed by `framingOrigin`: 256 random
 * bits, only its SHA-256 stored, valid for HANDOFF_TTL_SECONDS. The redirect carries it in the
 * URL fragment, which browsers never send to a server nor put in a Referer.
 */
export async function issueHandoff(
  deps: Deps,
  member: MemberWithUser,
  framingOrigin: string,
): Promise<string> {
  const code = randomBytes(CODE_BYTES).toString('base64url');
  const now = deps.now();
  await insertHandoff(
    deps.store.db,
    {
      codeHash: hashOf(code),
      organizationId: member.organizationId,
      memberId: member.id,
      framingOrigin,
      expiresAt: new Date(now.getTime() + HANDOFF_TTL_SECONDS * 1000).toISOString(),
    },
    now,
  );
  return code;
}

/** Where a redemption came from, as the request says it (see routes/embed.ts). */
export interface Presented {
  /** The framing page's origin as the embed page reports it; undefined when it is not framed. */
  framingOrigin: string | undefined;
  /** Whether the request came from a page on the bridge's own origin (the embed page). */
  sameOrigin: boolean;
}

/**
 * Redeems a handoff code for a new full-embed session, once. A code presented again ends the
 * session its first redemption started, even one still being made when the replay came (a
 * leaked code is worth nothing to its thief, and the page that lost the race shows that it
 * could not sign in). The code redeems only from the bridge's own embed page framed by the
 * origin that signed in: a redemption from another origin, at top level (no framing origin) or
 * in another site's frame is refused, and the code is burnt all the same, so a sign-in link
 * handed to someone else can never sign them in.
 */
export async function redeemEmbedCode(deps: Deps, code: string, presented: Presented) {
  if (!CODE_SHAPE.test(code)) throw invalidCode();
  const codeHash = hashOf(code);
  const result = await redeemHandoff(deps.store.db, codeHash, deps.now());
  if (result.status === 'unknown') throw invalidCode();
  const { row } = result;
  if (result.status === 'used') {
    // With no session recorded yet, the redemption under way sees this replay's mark and
    // ends its session itself (below).
    if (row.sessionId) await endSession(deps, row.organizationId, row.sessionId);
    throw codeUsed();
  }
  checkPresented(presented, row.framingOrigin);
  const member = await findMember(deps.store.db, row.organizationId, row.memberId);
  if (!member) throw invalidCode();
  const session = await issueSession(deps, member, {
    kind: 'embed',
    framingOrigin: row.framingOrigin,
  });
  const { sessionId } = session.claims;
  if (!(await recordHandoffSession(deps.store.db, codeHash, sessionId))) {
    // Presented again while this session was being made: it must not live either.
    await endSession(deps, row.organizationId, sessionId);
    throw codeUsed();
  }
  // Full embed turned off, the origin dropped or the member removed since the redirect.
  const live = await liveSession(deps, session.claims);
  if (!live) throw invalidCode();
  return { session, org: live.org };
}

/** The checks of where a redemption came from, after the code is marked used (so burnt). */
function checkPresented({ framingOrigin, sameOrigin }: Presented, signedInFrom: string) {
  if (!sameOrigin) {
    throw forbidden(
      "A sign-in code redeems only from the bridge's own embed page",
      'embed_origin_foreign',
    );
  }
  if (framingOrigin === undefined) {
    throw forbidden(
      'A sign-in code redeems only inside a frame of an allowed origin',
      'embed_framing_required',
    );
  }
  if (framingOrigin !== signedInFrom) {
    throw forbidden(
      'This page is framed by another site than the sign-in',
      'embed_origin_mismatch',
    );
  }
}

const codeUsed = () =>
  new ApiError('Unauthorized', 'This sign-in code was already used', { code: 'embed_code_used' });

/** Ends a session a handoff code started (it can live no longer than the session maximum). */
function endSession(deps: Deps, orgId: string, sessionId: string) {
  const now = deps.now();
  return revokeSession(
    deps.store.db,
    {
      sessionId,
      orgId,
      expiresAt: new Date(now.getTime() + deps.config.sessionMaxAgeSeconds * 1000).toISOString(),
    },
    now.toISOString(),
  );
}
