import type { Organization } from '@bridgekit/contract';
import { useId, useState } from 'react';
import { ConfirmDialog } from '../internal/confirm-dialog';
import type { SettingsContext } from './settings-context';

interface DeleteSectionProps {
  context: SettingsContext;
  unstyled: boolean | undefined;
  organization: Organization;
  onDeleted: (organization: Organization) => void;
}

/** Delete the organization, confirmed by typing its slug. */
export function DeleteSection({ context, unstyled, organization, onDeleted }: DeleteSectionProps) {
  const { client, messages } = context;
  const id = useId();
  const [typed, setTyped] = useState('');
  return (
    <section className="bk-section bk-organization-settings__delete" aria-labelledby={`${id}-t`}>
      <h3 id={`${id}-t`} className="bk-section__title">
        {messages.deleteOrgTitle}
      </h3>
      <p className="bk-field__hint">{messages.deleteOrgDescription}</p>
      <div>
        <ConfirmDialog
          context={context}
          unstyled={unstyled}
          trigger={{ label: messages.deleteOrg, className: 'bk-button bk-button--danger' }}
          title={messages.deleteOrgConfirmTitle}
          description={messages.deleteOrgDescription}
          confirm={messages.deleteOrgConfirm}
          busyText={messages.deletingOrg}
          failedText={messages.deleteOrgFailed}
          ready={typed === organization.slug}
          onOpenChange={() => setTyped('')}
          onConfirm={async () => {
            const { data } = await client.deleteOrganization({
              params: { orgId: organization.id },
            });
            onDeleted(data);
          }}
        >
          <div className="bk-field">
            <label className="bk-field__label" htmlFor={`${id}-confirm`}>
              {messages.deleteOrgTypeToConfirm(organization.slug)}
            </label>
            <input
              id={`${id}-confirm`}
              className="bk-input"
              autoComplete="off"
              spellCheck={false}
              value={typed}
              onChange={(event) => setTyped(event.currentTarget.value)}
            />
          </div>
        </ConfirmDialog>
      </div>
    </section>
  );
}
