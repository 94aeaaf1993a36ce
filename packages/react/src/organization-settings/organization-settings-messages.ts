import { type OriginPatternError, originPatternMessages } from '@bridgekit/contract/origin-pattern';

const dateTime = /* @__PURE__ */ new Intl.DateTimeFormat('en-US', {
  dateStyle: 'medium',
  timeStyle: 'short',
  timeZone: 'UTC',
});

/** `OrganizationSettings`' strings: it adds them under the provider's messages itself. */
export const organizationSettingsMessages = {
  orgLoading: 'Loading organization…',
  orgNotFound: 'This organization could not be found.',
  orgLoadFailed: 'The organization could not be loaded.',
  orgReadOnly: 'Only admins of this organization can change its settings.',
  orgHostSettingsLocked:
    'The slug, the full-embed page and its allowed origins are set by your application with an API key, and so is deleting the organization.',
  orgGeneral: 'General',
  orgName: 'Name',
  orgSlug: 'Slug',
  orgSlugHint: 'Lowercase letters, digits and inner hyphens; part of the full-embed address.',
  orgAiContext: 'AI context',
  orgAiContextHint: 'What the assistant should know about this organization.',
  orgFullEmbed: 'Allow the full-embed page',
  orgOrigins: 'Allowed origins',
  orgOriginsHint: 'Sites that may frame the full-embed page: https://host or https://*.host.',
  orgOriginsEmpty: 'No origins yet: no site can frame the page.',
  originLabel: (n: number) => `Origin ${n}`,
  addOrigin: 'Add origin',
  removeOriginNamed: (n: number) => `Remove origin ${n}`,
  originDuplicate: 'Already in the list',
  /** Why an origin is refused, by the bridge's rule (`OriginPatternError`). */
  originErrors: originPatternMessages as Record<OriginPatternError, string>,
  orgRequired: 'Required',
  orgCheckFields: 'Please check the highlighted fields.',
  orgSave: 'Save changes',
  orgSaving: 'Saving…',
  orgSaved: 'Saved.',
  orgSaveFailed: 'The settings could not be saved.',
  secretTitle: 'SSO signing secret',
  secretDescription:
    'Your backend signs SSO tokens with this secret. Rotating it issues a new one; the previous one keeps working for a grace period.',
  secretGraceUntil: (iso: string) =>
    `The previous secret still verifies tokens until ${dateTime.format(new Date(iso))} UTC.`,
  rotateSecret: 'Rotate secret',
  rotateTitle: 'Rotate the signing secret?',
  rotateDescription:
    'A new secret is issued at once. The current one keeps verifying tokens for a grace period: move your backend to the new one before it ends.',
  rotateConfirm: 'Rotate secret',
  rotating: 'Rotating…',
  rotateFailed: 'The secret could not be rotated.',
  newSecret: 'New signing secret',
  newSecretOnce: 'Copy it now: it is shown only this once.',
  copy: 'Copy',
  copied: 'Copied.',
  copyFailed: 'Could not copy: select the text and copy it.',
  deleteOrgTitle: 'Delete organization',
  deleteOrgDescription:
    'Deletes the organization with its data sources, members and sessions. This cannot be undone.',
  deleteOrg: 'Delete organization',
  deleteOrgConfirmTitle: 'Delete organization?',
  deleteOrgTypeToConfirm: (slug: string) => `Type ${slug} to confirm`,
  deleteOrgConfirm: 'Delete organization',
  deletingOrg: 'Deleting…',
  deleteOrgFailed: 'The organization could not be deleted.',
  orgDeleted: (name: string) => `“${name}” was deleted.`,
  orgSettingsTitle: 'Organization settings',
};

export type OrganizationSettingsMessages = typeof organizationSettingsMessages;
