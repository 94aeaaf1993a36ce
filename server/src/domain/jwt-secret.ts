import { randomBytes } from 'node:crypto';
import { notFound } from '../api-error';
import type { Deps } from '../deps';
import {
  findOrganizationForUpdate,
  type OrganizationRow,
  updateOrganizationRow,
} from '../store/organizations';
import { endSessionsSignedInBy } from '../store/sessions';
import { recordEvent } from '../webhooks/events';

/** The field names bound into each sealed secret's associated data (`recordId:field`). */
export const JWT_SECRET_FIELD = 'jwtSecret';
export const PREVIOUS_JWT_SECRET_FIELD = 'previousJwtSecret';

/** 32 random bytes, base64url: an HMAC key used as the UTF-8 bytes of this string. */
export const newJwtSecret = () => randomBytes(32).toString('base64url');

type SecretColumns = Pick<
  OrganizationRow,
  'previousJwtSecretSealed' | 'previousJwtSecretExpiresAt'
>;

/** Whether the secret the last rotation replaced still verifies SSO tokens at `now`. */
export function previousSecretLive(row: SecretColumns, now: Date): boolean {
  const until = row.previousJwtSecretExpiresAt;
  return (
    row.previousJwtSecretSealed !== null && until !== null && Date.parse(until) > now.getTime()
  );
}

/**
 * Replaces the organization's jwtSecret with a new one. The replaced secret keeps verifying
 * for the configured grace period, sealed under its own field name; a secret an earlier
 * rotation kept is dropped. Row-locked, so concurrent rotations each keep the secret the
 * other made (the last one's previous is the one before it). Returns the row and the new
 * secret in plain text, for the one answer that shows it.
 */
export async function rotateJwtSecret(
  deps: Deps,
  orgId: string,
  options: { endSessions?: boolean } = {},
): Promise<{ row: OrganizationRow; secret: string }> {
  const { secretBox: box, store } = deps;
  return store.db.transaction().execute(async (tx) => {
    const org = await findOrganizationForUpdate(tx, store.engine, orgId);
    if (!org) throw notFound('Organization', 'organization_not_found');
    const now = deps.now();
    const graceMs = deps.config.jwtSecretGraceSeconds * 1000;
    const replaced = box.open(org.jwtSecretSealed, org.id, JWT_SECRET_FIELD);
    const secret = newJwtSecret();
    const row = await updateOrganizationRow(tx, org.id, {
      jwtSecretSealed: box.seal(secret, org.id, JWT_SECRET_FIELD),
      previousJwtSecretSealed:
        graceMs > 0 ? box.seal(replaced, org.id, PREVIOUS_JWT_SECRET_FIELD) : null,
      previousJwtSecretExpiresAt:
        graceMs > 0 ? new Date(now.getTime() + graceMs).toISOString() : null,
      updatedAt: now.toISOString(),
    });
    if (!row) throw notFound('Organization', 'organization_not_found');
    // In the same transaction: the sessions end exactly when the new secret takes over.
    if (options.endSessions) {
      await endSessionsSignedInBy(tx, org.id, now, deps.config.sessionMaxAgeSeconds * 1000);
    }
    const data = {
      organizationId: org.id,
      previousJwtSecretExpiresAt: row.previousJwtSecretExpiresAt,
    };
    await recordEvent(tx, org.id, 'organization.jwt_secret_rotated', data, now);
    return { row, secret };
  });
}
