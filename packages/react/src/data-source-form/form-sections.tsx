import type { FormMessages } from '../provider/messages';
import type { BoundFields } from './bound-fields';
import { ConnectionStringField } from './connection-string-field';
import { FileButton } from './fields';
import type { FormApi } from './use-form-state';

const PORT = { inputMode: 'numeric', autoComplete: 'off', className: 'bk-field--short' };
const PLAIN = { autoComplete: 'off', spellCheck: false };

interface SectionProps {
  fields: BoundFields;
  messages: FormMessages;
}

/** Name, type, address, database, user and password; a new one can start from a connection string. */
export function ConnectionSection({
  fields,
  messages,
  form,
  idOf,
  readOnly = false,
}: SectionProps & { form: FormApi; idOf: (field: string) => string; readOnly?: boolean }) {
  const { values, record } = form;
  const fixed = readOnly || record !== null;
  return (
    <fieldset className="bk-section">
      <legend className="bk-section__title">{messages.sectionConnection}</legend>
      {!fixed && (
        <ConnectionStringField
          id={idOf('connectionString')}
          messages={messages}
          onParsed={form.fill}
        />
      )}
      {fields.text('displayName', { autoComplete: 'off' })}
      <fieldset className="bk-field bk-choice">
        <legend className="bk-field__label">{messages.dialect}</legend>
        {(['POSTGRES', 'MYSQL'] as const).map((dialect, i) => (
          <label key={dialect} className="bk-choice__option">
            <input
              type="radio"
              id={i === 0 ? idOf('dialect') : undefined}
              name={idOf('dialect')}
              value={dialect}
              checked={values.dialect === dialect}
              onChange={() => form.setDialect(dialect)}
              disabled={fixed}
            />
            {dialect === 'POSTGRES' ? messages.dialectPostgres : messages.dialectMysql}
          </label>
        ))}
      </fieldset>
      <div className="bk-row">
        {fields.text('host', PLAIN)}
        {fields.text('port', PORT)}
      </div>
      {fields.text('databaseName', {
        hint:
          values.dialect === 'MYSQL' ? messages.databaseNameHintMysql : messages.databaseNameHint,
        ...PLAIN,
      })}
      {fields.text('username', PLAIN)}
      {fields.secret('password')}
    </fieldset>
  );
}

export function SslSection({ fields, messages }: SectionProps) {
  return (
    <fieldset className="bk-section">
      <legend className="bk-section__title">{messages.sectionSsl}</legend>
      {fields.checkbox('sslEnabled')}
    </fieldset>
  );
}

/** The SSH tunnel: off, or a bastion with a password or a private key. */
export function SshSection({
  fields,
  messages,
  form,
  idOf,
  readOnly = false,
}: SectionProps & { form: FormApi; idOf: (field: string) => string; readOnly?: boolean }) {
  const { values, set } = form;
  return (
    <fieldset className="bk-section">
      <legend className="bk-section__title">{messages.sectionSsh}</legend>
      {fields.checkbox('sshEnabled')}
      {values.sshEnabled && (
        <>
          <div className="bk-row">
            {fields.text('sshHost', PLAIN)}
            {fields.text('sshPort', PORT)}
          </div>
          {fields.text('sshUsername', PLAIN)}
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
                  disabled={readOnly}
                />
                {method === 'password' ? messages.sshAuthPassword : messages.sshAuthKey}
              </label>
            ))}
          </fieldset>
          {values.sshAuth === 'password' ? (
            fields.secret('sshPassword')
          ) : (
            <>
              {fields.secret(
                'sshPrivateKey',
                !readOnly && (
                  <FileButton
                    label={messages.sshPrivateKeyFile}
                    onLoad={(text) => set('sshPrivateKey', text)}
                  />
                ),
              )}
              {fields.secret('sshPrivateKeyPassphrase')}
            </>
          )}
        </>
      )}
    </fieldset>
  );
}
