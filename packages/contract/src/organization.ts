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

export const CreateOrganizationBody = z.strictObject({
  name: z
    .string()
    .trim()
    .min(1, 'Must be at least 1 character')
    .max(200, 'Must be at most 200 characters'),
  customAiContext: z.string().max(10_000, 'Must be at most 10000 characters').optional(),
  skipOnboarding: z.boolean().optional(),
  fullEmbedEnabled: z.boolean().optional(),
  embedAllowedOrigins: z.array(OriginPattern).max(100, 'At most 100 origins').optional(),
  slug: Slug.optional(),
});
export type CreateOrganizationBody = z.infer<typeof CreateOrganizationBody>;

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
