import { randomBytes } from 'node:crypto';
import type { CreateOrganizationBody } from '@bridgekit/contract';
import { ApiError, type FieldFailure } from '../api-error';
import type { Deps } from '../deps';
import { normalizeOriginPattern, storeOrigins } from '../embed-origins';
import { isUniqueViolation } from '../store/db';
import { insertMember } from '../store/members';
import {
  findOrganizationBySlug,
  insertOrganization,
  type OrganizationRow,
} from '../store/organizations';
import { newId } from './ids';
import { JWT_SECRET_FIELD, newJwtSecret } from './jwt-secret';

const SUFFIX_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** `"Acme Café, Inc."` → `acme-cafe-inc`; never empty, at most 50 chars so a suffix fits in 63. */
export function slugFromName(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 50)
    .replace(/-+$/g, '');
  return base || 'org';
}

const randomSuffix = () =>
  Array.from(randomBytes(4), (b) => SUFFIX_ALPHABET[b % SUFFIX_ALPHABET.length]).join('');

/** Normalizes each origin pattern; all failures are reported at once as `embedAllowedOrigins.<i>`. */
export function normalizeOrigins(patterns: readonly string[]): string[] {
  const fields: Record<string, FieldFailure> = {};
  const out: string[] = [];
  patterns.forEach((pattern, i) => {
    const result = normalizeOriginPattern(pattern);
    if (result.ok) {
      if (!out.includes(result.value)) out.push(result.value);
    } else {
      fields[`embedAllowedOrigins.${i}`] = { code: 'invalid_origin', message: result.message };
    }
  });
  if (Object.keys(fields).length > 0) {
    throw new ApiError('ValidationError', 'Invalid embedAllowedOrigins', {
      code: 'validation_failed',
      fields,
    });
  }
  return out;
}

/** 409 for a slug another organization has. */
export const slugTaken = () =>
  new ApiError('Conflict', 'That slug is already taken', {
    code: 'slug_taken',
    fields: { slug: { code: 'slug_taken', message: 'Already taken' } },
  });

/** Creates the organization and makes the caller its ADMIN, in one transaction. */
export async function createOrganization(
  deps: Deps,
  userId: string,
  body: CreateOrganizationBody,
): Promise<OrganizationRow> {
  const origins = normalizeOrigins(body.embedAllowedOrigins ?? []);
  const taken = slugTaken;
  if (body.slug && (await findOrganizationBySlug(deps.store.db, body.slug))) throw taken();
  const base = body.slug ?? slugFromName(body.name);

  for (let attempt = 0; attempt < 6; attempt++) {
    const id = newId('org');
    const at = deps.now().toISOString();
    const slug = attempt === 0 ? base : `${base}-${randomSuffix()}`;
    if (!body.slug && attempt === 0 && (await findOrganizationBySlug(deps.store.db, slug)))
      continue;
    const row: OrganizationRow = {
      id,
      name: body.name,
      slug,
      customAiContext: body.customAiContext ?? null,
      onboardingStatus: body.skipOnboarding ? 'COMPLETED' : 'STARTED',
      fullEmbedEnabled: body.fullEmbedEnabled ? 1 : 0,
      embedAllowedOrigins: storeOrigins(origins),
      jwtSecretSealed: deps.secretBox.seal(newJwtSecret(), id, JWT_SECRET_FIELD),
      previousJwtSecretSealed: null,
      previousJwtSecretExpiresAt: null,
      createdAt: at,
      updatedAt: at,
    };
    try {
      await deps.store.db.transaction().execute(async (tx) => {
        await insertOrganization(tx, row);
        await insertMember(tx, {
          id: newId('mem'),
          organizationId: id,
          userId,
          role: 'ADMIN',
          groups: null,
          createdAt: at,
        });
      });
      return row;
    } catch (err) {
      // Another request took the slug between the check and the insert.
      if (!isUniqueViolation(err)) throw err;
      if (body.slug) throw taken();
    }
  }
  throw new ApiError('Conflict', 'Could not find a free slug; send one explicitly', {
    code: 'slug_unavailable',
    fields: { slug: { code: 'slug_unavailable', message: 'Could not generate a free slug' } },
  });
}
