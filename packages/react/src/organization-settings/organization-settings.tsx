import type { Organization } from '@bridgekit/contract';
import { type ComponentPropsWithoutRef, forwardRef, useId, useState } from 'react';
import { errorText, isNotFound } from '../internal/error-text';
import { rootProps } from '../internal/root-props';
import { useComponentContext } from '../internal/use-component-context';
import { useResource } from '../internal/use-resource';
import { useAccess, useSessionSnapshot } from '../provider/use-access';
import { DeleteSection } from './delete-section';
import { GeneralForm } from './general-form';
import { organizationSettingsMessages } from './organization-settings-messages';
import { SecretSection } from './secret-section';

export type OrganizationSettingsProps = Omit<ComponentPropsWithoutRef<'section'>, 'children'> & {
  orgId: string;
  /** After a save or a secret rotation, with the organization as the bridge returned it. */
  onSaved?: ((organization: Organization) => void) | undefined;
  /** After the organization was deleted, with the deleted record. */
  onDeleted?: ((organization: Organization) => void) | undefined;
  /** Leave out the kit's styles for this component. */
  unstyled?: boolean | undefined;
};

/**
 * An organization's settings: name, slug, AI context, full embed and its allowed origins, each
 * origin checked by the bridge's own rule as it is typed. With an API-key-backed client (a
 * host's backend proxy), an ADMIN also changes the slug, full embed and origins, rotates the SSO
 * signing secret (the new secret shows once, with the previous one's grace period) and deletes
 * the organization after typing its slug. In a signed-in session an ADMIN changes the name and
 * AI context; the rest shows read-only. A MEMBER sees the settings read-only.
 *
 * @example
 * <OrganizationSettings orgId={orgId} onDeleted={() => navigate('/')} />
 */
export const OrganizationSettings = /* @__PURE__ */ forwardRef<
  HTMLElement,
  OrganizationSettingsProps
>(function OrganizationSettings(props, ref) {
  const { orgId, onSaved, onDeleted, unstyled, className, ...rest } = props;
  const context = useComponentContext('OrganizationSettings', organizationSettingsMessages);
  const { client, messages } = context;
  const titleId = useId();
  const access = useAccess(context, orgId);
  const { state: session } = useSessionSnapshot(context);
  const loaded = useResource(orgId, (signal) =>
    client.getOrganization({ params: { orgId }, signal }),
  );
  const [latest, setLatest] = useState<Organization | null>(null);
  const [deleted, setDeleted] = useState<Organization | null>(null);
  const org = latest?.id === orgId ? latest : loaded.data?.data;
  const state = deleted
    ? 'deleted'
    : org && access.status === 'ready'
      ? 'ready'
      : loaded.status === 'error'
        ? 'error'
        : 'loading';
  const saved = (next: Organization) => {
    setLatest(next);
    onSaved?.(next);
  };

  let body: React.ReactNode;
  if (state === 'deleted') {
    body = (
      <p className="bk-notice" role="status">
        {messages.orgDeleted(deleted?.name ?? '')}
      </p>
    );
  } else if (state === 'error') {
    body = (
      <div className="bk-alert" role="alert">
        <p>
          {isNotFound(loaded.error)
            ? messages.orgNotFound
            : errorText(loaded.error, messages, messages.orgLoadFailed)}
        </p>
        {!isNotFound(loaded.error) && (
          <button type="button" className="bk-button" onClick={loaded.retry}>
            {messages.retry}
          </button>
        )}
      </div>
    );
  } else if (state === 'loading' || !org || access.status !== 'ready') {
    body = (
      <p className="bk-organization-settings__status" role="status">
        {messages.orgLoading}
      </p>
    );
  } else {
    const { canEdit } = access;
    // The bridge takes host settings, rotation and deletion from an API key only (a session
    // gets 403 api_key_required), so a signed-in session sees them read-only or not at all.
    const withKey = session.status === 'none';
    body = (
      <>
        {!canEdit && <p className="bk-notice">{messages.orgReadOnly}</p>}
        {canEdit && !withKey && <p className="bk-notice">{messages.orgHostSettingsLocked}</p>}
        <GeneralForm
          key={org.id}
          context={context}
          organization={org}
          readOnly={!canEdit}
          hostLocked={!withKey}
          onSaved={saved}
        />
        {canEdit && withKey && (
          <SecretSection
            context={context}
            unstyled={unstyled}
            organization={org}
            onRotated={saved}
          />
        )}
        {canEdit && withKey && (
          <DeleteSection
            context={context}
            unstyled={unstyled}
            organization={org}
            onDeleted={(record) => {
              setDeleted(record);
              onDeleted?.(record);
            }}
          />
        )}
      </>
    );
  }

  return (
    <section
      {...rest}
      {...rootProps(context, 'organization-settings', unstyled, className, rest.style)}
      ref={ref}
      aria-labelledby={titleId}
      data-state={state}
    >
      <h2 id={titleId} className="bk-organization-settings__title">
        {org?.name ?? messages.orgSettingsTitle}
      </h2>
      {body}
    </section>
  );
});
