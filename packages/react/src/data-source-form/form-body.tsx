import type { DataSource } from '@bridgekit/contract';
import { type ReactNode, type Ref, useId } from 'react';
import type { BridgeContextValue } from '../provider/bridge-provider';
import type { Messages } from '../provider/messages';
import { DeleteDialog } from './delete-dialog';
import { ErrorSummary } from './error-summary';
import { CheckboxField, FileButton, TextField } from './fields';
import type { FormSecret } from './form-values';
import { SecretField } from './secret-field';
import { useFormState } from './use-form-state';

type TextKey =
  | 'displayName'
  | 'host'
  | 'port'
  | 'databaseName'
  | 'username'
  | 'sshHost'
  | 'sshPort'
  | 'sshUsername';

interface FormBodyProps {
  root: { className: string; ref: Ref<HTMLFormElement> } & Record<string, unknown>;
  context: BridgeContextValue;
  unstyled: boolean | undefined;
  orgId: string;
  initialRecord: DataSource | null;
  requireVerify: boolean;
  onSaved: ((record: DataSource) => void) | undefined;
  onDeleted: ((record: DataSource) => void) | undefined;
}

const labelOf = (messages: Messages, field: string) => {
  const label = (messages as Record<string, unknown>)[field];
  return typeof label === 'string' ? label : field;
};

/** The form once the record (if any) is known; keyed by record id. */
export function FormBody(props: FormBodyProps) {
  const { root, context, unstyled, orgId, initialRecord, requireVerify, onSaved, onDeleted } =
    props;
  const { messages } = context;
  const baseId = useId();
  const idOf = (field: string) => `${baseId}-${field}`;
  const form = useFormState({ context, orgId, initialRecord, requireVerify, onSaved });
  const { record, values, modes, errors, status, shownStatus: state, busy, isVerified } = form;
  const { needsVerify, canSave } = form;
  const { summaryRef, set, setMode, testConnection, save } = form;

  if (status === 'deleted') {
    return (
      <form {...root} data-state="deleted">
        <p className="bk-data-source-form__status" role="status">
          {messages.deleted}
        </p>
      </form>
    );
  }

  const text = (field: TextKey, extra: Record<string, unknown> = {}) => (
    <TextField
      id={idOf(field)}
      label={labelOf(messages, field)}
      value={values[field]}
      onChange={(event) => set(field, event.target.value)}
      error={errors?.fields[field]}
      {...extra}
    />
  );
  const secret = (field: FormSecret, extra?: ReactNode) => (
    <SecretField
      id={idOf(field)}
      label={labelOf(messages, field)}
      value={values[field]}
      onChange={(value) => set(field, value)}
      mode={modes[field]}
      onModeChange={(mode) => setMode(field, mode)}
      error={errors?.fields[field]}
      messages={messages}
      multiline={field === 'sshPrivateKey'}
      extra={extra}
    />
  );
  const checkbox = (field: 'sslEnabled' | 'sshEnabled') => (
    <CheckboxField
      id={idOf(field)}
      label={labelOf(messages, field)}
      checked={values[field]}
      onChange={(event) => set(field, event.target.checked)}
      error={errors?.fields[field]}
    />
  );
  const port = { inputMode: 'numeric', autoComplete: 'off', className: 'bk-field--short' };
  const keptSecrets = Object.values(modes).includes('stored');

  return (
    <form {...root} data-state={state} aria-busy={busy || undefined} onSubmit={save} noValidate>
      {errors && (
        <ErrorSummary
          ref={summaryRef}
          detail={errors.detail}
          fields={errors.fields}
          idOf={idOf}
          labelOf={(field) => labelOf(messages, field)}
        />
      )}

      <fieldset className="bk-section">
        <legend className="bk-section__title">{messages.sectionConnection}</legend>
        {text('displayName', { autoComplete: 'off' })}
        <div className="bk-row">
          {text('host', { autoComplete: 'off', spellCheck: false })}
          {text('port', port)}
        </div>
        {text('databaseName', {
          hint: messages.databaseNameHint,
          autoComplete: 'off',
          spellCheck: false,
        })}
        {text('username', { autoComplete: 'off', spellCheck: false })}
        {secret('password')}
      </fieldset>

      <fieldset className="bk-section">
        <legend className="bk-section__title">{messages.sectionSsl}</legend>
        {checkbox('sslEnabled')}
      </fieldset>

      <fieldset className="bk-section">
        <legend className="bk-section__title">{messages.sectionSsh}</legend>
        {checkbox('sshEnabled')}
        {values.sshEnabled && (
          <>
            <div className="bk-row">
              {text('sshHost', { autoComplete: 'off', spellCheck: false })}
              {text('sshPort', port)}
            </div>
            {text('sshUsername', { autoComplete: 'off', spellCheck: false })}
            <fieldset className="bk-field bk-choice">
              <legend className="bk-field__label">{messages.sshAuth}</legend>
              {(['password', 'privateKey'] as const).map((method) => (
                <label key={method} className="bk-choice__option">
                  <input
                    type="radio"
                    name={idOf('sshAuth')}
                    value={method}
                    checked={values.sshAuth === method}
                    onChange={() => set('sshAuth', method)}
                  />
                  {method === 'password' ? messages.sshAuthPassword : messages.sshAuthKey}
                </label>
              ))}
            </fieldset>
            {values.sshAuth === 'password' ? (
              secret('sshPassword')
            ) : (
              <>
                {secret(
                  'sshPrivateKey',
                  <FileButton
                    label={messages.sshPrivateKeyFile}
                    onLoad={(text) => set('sshPrivateKey', text)}
                  />,
                )}
                {secret('sshPrivateKeyPassphrase')}
              </>
            )}
          </>
        )}
      </fieldset>

      <p className="bk-data-source-form__status" role="status">
        {state === 'verifying'
          ? messages.testingConnection
          : state === 'verified'
            ? messages.verified
            : state === 'saving'
              ? messages.saving
              : state === 'saved'
                ? messages.saved
                : ''}
      </p>
      {needsVerify && !isVerified && (
        <p id={idOf('save-hint')} className="bk-field__hint">
          {messages.verifyBeforeSave}
          {record && keptSecrets && ` ${messages.storedSecretsNotTested}`}
        </p>
      )}
      <div className="bk-data-source-form__actions">
        <button type="button" className="bk-button" onClick={testConnection}>
          {status === 'verifying' ? messages.testingConnection : messages.testConnection}
        </button>
        <button
          type="submit"
          className="bk-button bk-button--primary"
          disabled={!canSave}
          aria-describedby={needsVerify && !isVerified ? idOf('save-hint') : undefined}
        >
          {status === 'saving' ? messages.saving : messages.save}
        </button>
        {record && (
          <DeleteDialog
            context={context}
            unstyled={unstyled}
            orgId={orgId}
            record={record}
            onDeleted={(deleted) => {
              form.markDeleted();
              onDeleted?.(deleted);
            }}
          />
        )}
      </div>
    </form>
  );
}
