import { z } from 'zod';
import { MemberId, OrganizationId, Timestamp, UserId } from './common';

export const Role = z.enum(['ADMIN', 'MEMBER']);
export type Role = z.infer<typeof Role>;

export const User = z.object({
  id: UserId,
  fullName: z.string().nullable(),
  firstName: z.string().nullable(),
  title: z.string().nullable(),
  avatarUrl: z.string().nullable(),
  email: z.string(),
  isEmailVerified: z.boolean(),
  createdAt: Timestamp,
});
export type User = z.infer<typeof User>;

export const Member = z.object({
  id: MemberId,
  createdAt: Timestamp,
  role: Role,
  userId: UserId,
  organizationId: OrganizationId,
  user: User,
});
export type Member = z.infer<typeof Member>;

export const Email = z
  .string()
  .trim()
  .max(254, 'Must be at most 254 characters')
  .pipe(z.email('Must be an email address'));

export const AddMemberBody = z.strictObject({
  email: Email,
  role: Role,
});
export type AddMemberBody = z.infer<typeof AddMemberBody>;

/** A member's new role; the last ADMIN of an organization can't be demoted. */
export const UpdateMemberBody = z.strictObject({ role: Role });
export type UpdateMemberBody = z.infer<typeof UpdateMemberBody>;

export const MemberParams = z.strictObject({ orgId: z.string(), id: z.string() });
