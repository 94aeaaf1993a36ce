import type { Organization } from '@bridgekit/contract';
import { useId, useState } from 'react';
import { ConfirmDialog } from '../internal/confirm-dialog';
import type { SettingsContext } from './settings-context';

interface SecretSectionProps {
  context: SettingsContext;
  unstyled: boolean | undefined;
  organization: Organization;
  onRotated: (organization: Organization) => void;
}

/**
 * `jwtSecret` rotation for an API-key-backed client: the grace period of the previous secret,
 * and the new secret shown once (kept only in this component's state), with Copy.
 */
export function SecretSection({ context, unstyled, organization, onRotated }: SecretSectionProps) {
  const { client, messages } = context;
  const id = useId();
  const [secret, setSecret] = useState<string | null>(null);
  const [copy, setCopy] = useState<'idle' | 'copied' | 'failed'>('idle');
  const grace = organization.previousJwtSecretExpiresAt;

  const rotate = async () => {
    const { data } = await client.rotateJwtSecret({ params: { orgId: organization.id } });
    const { jwtSecret, ...rest } = data;
    setSecret(jwtSecret);
    setCopy('idle');
    onRotated(rest);
  };

  const copySecret = async () => {
    try {
      await navigator.clipboard.writeText(secret ?? '');
      setCopy('copied');
    } catch {
      setCopy('failed');
      const input = document.getElementById(`${id}-secret`) as HTMLInputElement | null;
      input?.select();
    }
  };

  return (
    <section className="bk-section bk-organization-settings__secret" aria-labelledby={`${id}-t`}>
      <h3 id={`${id}-t`} className="bk-section__title">
        {messages.secretTitle}
      </h3>
      <p className="bk-field__hint">{messages.secretDescription}</p>
      {grace && <p className="bk-notice">{messages.secretGraceUntil(grace)}</p>}
      {secret && (
        <div className="bk-field bk-organization-settings__new-secret">
          <label className="bk-field__label" htmlFor={`${id}-secret`}>
            {messages.newSecret}
          </label>
          <div className="bk-secret__row">
            <input
              id={`${id}-secret`}
              className="bk-input"
              readOnly
              spellCheck={false}
              autoComplete="off"
              value={secret}
              aria-describedby={`${id}-once`}
              onFocus={(event) => event.currentTarget.select()}
            />
            <button type="button" className="bk-button" onClick={copySecret}>
              {messages.copy}
            </button>
          </div>
          <p id={`${id}-once`} className="bk-field__hint">
            {messages.newSecretOnce}
          </p>
          <p className="bk-field__hint" role="status">
            {copy === 'copied' ? messages.copied : copy === 'failed' ? messages.copyFailed : ''}
          </p>
        </div>
      )}
      <div>
        <ConfirmDialog
          context={context}
          unstyled={unstyled}
          trigger={{ label: messages.rotateSecret, className: 'bk-button' }}
          title={messages.rotateTitle}
          description={messages.rotateDescription}
          confirm={messages.rotateConfirm}
          busyText={messages.rotating}
          failedText={messages.rotateFailed}
          onConfirm={rotate}
        />
      </div>
    </section>
  );
}
