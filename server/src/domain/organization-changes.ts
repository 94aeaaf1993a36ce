import type { OnboardingStatus, UpdateOrganizationBody } from '@bridgekit/contract';
import type { Updateable } from 'kysely';
import { ApiError } from '../api-error';
import type { Deps } from '../deps';
import { storeOrigins } from '../embed-origins';
import { isUniqueViolation } from '../store/db';
import {
  deleteOrganizationRow,
  findOrganizationBySlug,
  findOrganizationForUpdate,
  type OrganizationRow,
  updateOrganizationRow,
} from '../store/organizations';
import type { OrganizationsTable } from '../store/schema';
import { recordEvent } from '../webhooks/events';
import { orgNotFound } from './access';
import { normalizeOrigins, slugTaken } from './organizations';

/** Onboarding only moves forward: STARTED → COMPLETED; the current value changes nothing. */
function onboardingRefusal(from: string, to: OnboardingStatus): string | undefined {
  if (to === from || (from === 'STARTED' && to === 'COMPLETED')) return undefined;
  return `Can only move forward, from STARTED to COMPLETED (it is ${from})`;
}

/** The columns a PATCH body sets; omitted fields are left out. */
function patchOf(body: UpdateOrganizationBody, origins: string[] | undefined, at: string) {
  const patch: Updateable<OrganizationsTable> = { updatedAt: at };
  if (body.name !== undefined) patch.name = body.name;
  if (body.slug !== undefined) patch.slug = body.slug;
  if (body.customAiContext !== undefined) patch.customAiContext = body.customAiContext;
  if (body.fullEmbedEnabled !== undefined) patch.fullEmbedEnabled = body.fullEmbedEnabled ? 1 : 0;
  if (origins !== undefined) patch.embedAllowedOrigins = storeOrigins(origins);
  if (body.onboardingStatus !== undefined) patch.onboardingStatus = body.onboardingStatus;
  return patch;
}

/**
 * PATCH semantics: an omitted field is unchanged; origins are normalized and checked as on
 * create. Read, check and write with the row locked, so onboarding never moves back however
 * PATCHes interleave. A slug another organization has (checked, or found by the unique index
 * when two PATCHes race) is a 409.
 */
export async function updateOrganization(
  deps: Deps,
  orgId: string,
  body: UpdateOrganizationBody,
): Promise<OrganizationRow> {
  const origins = body.embedAllowedOrigins && normalizeOrigins(body.embedAllowedOrigins);
  try {
    return await deps.store.db.transaction().execute(async (tx) => {
      const org = await findOrganizationForUpdate(tx, deps.store.engine, orgId);
      if (!org) throw orgNotFound();
      const refusal =
        body.onboardingStatus && onboardingRefusal(org.onboardingStatus, body.onboardingStatus);
      if (refusal) {
        throw new ApiError('ValidationError', 'onboardingStatus can only move forward', {
          fields: { onboardingStatus: { code: 'onboarding_backwards', message: refusal } },
        });
      }
      if (body.slug !== undefined && body.slug !== org.slug) {
        if (await findOrganizationBySlug(tx, body.slug)) throw slugTaken();
      }
      const updated = await updateOrganizationRow(
        tx,
        orgId,
        patchOf(body, origins, deps.now().toISOString()),
      );
      if (!updated) throw orgNotFound();
      const changed = Object.keys(body).filter((k) => body[k as keyof typeof body] !== undefined);
      await recordEvent(
        tx,
        orgId,
        'organization.updated',
        { organizationId: orgId, name: updated.name, slug: updated.slug, changed },
        deps.now(),
      );
      return updated;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw slugTaken();
    throw err;
  }
}

/** Deletes the organization with everything that belongs to it; its users stay. */
export async function deleteOrganization(deps: Deps, orgId: string): Promise<OrganizationRow> {
  const deleted = await deps.store.db.transaction().execute(async (tx) => {
    const row = await deleteOrganizationRow(tx, orgId);
    if (row) {
      const data = { organizationId: orgId, name: row.name, slug: row.slug };
      await recordEvent(tx, orgId, 'organization.deleted', data, deps.now());
    }
    return row;
  });
  if (!deleted) throw orgNotFound();
  return deleted;
}
