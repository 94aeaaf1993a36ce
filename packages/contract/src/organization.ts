import { z } from 'zod';
import { Cursor, Limit, OrganizationId, Timestamp } from './common';

export const OnboardingStatus = z.enum(['LEGACY', 'STARTED', 'COMPLETED']);
export type OnboardingStatus = z.infer<typeof OnboardingStatus>;

export const Organization = z.object({
  id: OrganizationId,
  name: z.string().min(1),
  slug: z.string(),
  customAiContext: z.string().nullable(),
  onboardingStatus: OnboardingStatus,
  fullEmbedEnabled: z.boolean(),
  embedAllowedOrigins: z.array(z.string()),
  /** Present only with `include=jwtSecret` for an ADMIN of the organization. */
  jwtSecret: z.string().optional(),
  /**
   * Until when the secret replaced by the last rotation still verifies SSO tokens; null when
   * there is none (never rotated, or its grace period is over).
   */
  previousJwtSecretExpiresAt: Timestamp.nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Organization = z.infer<typeof Organization>;

export const Slug = z
  .string()
  .min(1, 'Must be 1 to 63 characters')
  .max(63, 'Must be 1 to 63 characters')
  .regex(
    /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/,
    'Must be lowercase letters, digits and inner hyphens',
  );

/** An embed origin pattern as written by a caller; the server normalizes and checks it. */
export const OriginPattern = z.string().min(1).max(300);

const OrgName = z
  .string()
  .trim()
  .min(1, 'Must be at least 1 character')
  .max(200, 'Must be at most 200 characters');
const AiContext = z.string().max(10_000, 'Must be at most 10000 characters');
const OriginList = z.array(OriginPattern).max(100, 'At most 100 origins');

export const CreateOrganizationBody = z.strictObject({
  name: OrgName,
  customAiContext: AiContext.optional(),
  skipOnboarding: z.boolean().optional(),
  fullEmbedEnabled: z.boolean().optional(),
  embedAllowedOrigins: OriginList.optional(),
  slug: Slug.optional(),
});
export type CreateOrganizationBody = z.infer<typeof CreateOrganizationBody>;

/**
 * What an ADMIN may change; an omitted field is unchanged. `customAiContext: null` clears it,
 * `embedAllowedOrigins` replaces the list, and `onboardingStatus` only moves forward
 * (`STARTED` → `COMPLETED`; the current value is accepted and changes nothing).
 */
export const UpdateOrganizationBody = z.strictObject({
  name: OrgName.optional(),
  slug: Slug.optional(),
  customAiContext: AiContext.nullable().optional(),
  fullEmbedEnabled: z.boolean().optional(),
  embedAllowedOrigins: OriginList.optional(),
  onboardingStatus: OnboardingStatus.optional(),
});
export type UpdateOrganizationBody = z.infer<typeof UpdateOrganizationBody>;

/** An organization with its (new) jwtSecret: what rotating the secret answers. */
export const OrganizationWithSecret = Organization.extend({ jwtSecret: z.string() });
export type OrganizationWithSecret = z.infer<typeof OrganizationWithSecret>;

/** Rotating the jwtSecret: the body is optional (no body rotates and ends no session). */
export const RotateJwtSecretBody = z
  .strictObject({
    endSessions: z
      .boolean()
      .optional()
      .describe(
        'true: also end every session of the organization signed in up to the rotation, kit and full embed, on every instance (for a leaked secret). Default false: sessions live on to their own limits',
      ),
  })
  .optional();
export type RotateJwtSecretBody = z.infer<typeof RotateJwtSecretBody>;

export const IncludeQuery = z.enum(['jwtSecret'], { error: 'Allowed value: jwtSecret' });

export const OrganizationQuery = z.strictObject({ include: IncludeQuery.optional() });
export type OrganizationQuery = z.infer<typeof OrganizationQuery>;

export const ListOrganizationsQuery = z.strictObject({
  limit: Limit.optional(),
  cursor: Cursor.optional(),
  include: IncludeQuery.optional(),
});
export type ListOrganizationsQuery = z.infer<typeof ListOrganizationsQuery>;

export const OrgParams = z.strictObject({ orgId: z.string() });
