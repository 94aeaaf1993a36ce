import type { ReactNode } from 'react';
import type { FormMessages } from '../provider/messages';
import { CheckboxField, TextField } from './fields';
import type { FormSecret } from './form-values';
import { SecretField } from './secret-field';
import type { FormApi } from './use-form-state';

type TextKey =
  | 'displayName'
  | 'host'
  | 'port'
  | 'databaseName'
  | 'username'
  | 'sshHost'
  | 'sshPort'
  | 'sshUsername';

const FORM_FIELDS = new Set<string>([
  'dialect',
  'displayName',
  'host',
  'port',
  'databaseName',
  'username',
  'password',
  'sslEnabled',
  'sshEnabled',
  'sshHost',
  'sshPort',
  'sshUsername',
  'sshPassword',
  'sshPrivateKey',
  'sshPrivateKeyPassphrase',
]);

/** The label of a field the form shows (messages are keyed by field name), else undefined. */
export const shownLabel = (messages: FormMessages, field: string): string | undefined => {
  const label = FORM_FIELDS.has(field) ? (messages as Record<string, unknown>)[field] : undefined;
  return typeof label === 'string' ? label : undefined;
};

/** The field's label, else its name. */
export const labelOf = (messages: FormMessages, field: string) =>
  shownLabel(messages, field) ?? field;

/**
 * Field renderers bound to the form: value, change handler, label, id and error by name.
 * Read-only: inputs read-only, checkboxes disabled, secrets shown as stored or not set.
 */
export function boundFields(
  form: FormApi,
  messages: FormMessages,
  idOf: (field: string) => string,
  readOnly = false,
) {
  const { values, modes, errors, set, setMode } = form;
  const common = (field: string) => ({
    id: idOf(field),
    label: labelOf(messages, field),
    error: errors?.fields[field],
  });
  return {
    text: (field: TextKey, extra: Record<string, unknown> = {}) => (
      <TextField
        {...common(field)}
        value={values[field]}
        onChange={(event) => set(field, event.target.value)}
        readOnly={readOnly}
        {...extra}
      />
    ),
    secret: (field: FormSecret, extra?: ReactNode) => (
      <SecretField
        {...common(field)}
        value={values[field]}
        onChange={(value) => set(field, value)}
        mode={modes[field]}
        onModeChange={(mode) => setMode(field, mode)}
        messages={messages}
        multiline={field === 'sshPrivateKey'}
        extra={extra}
        readOnly={readOnly}
      />
    ),
    checkbox: (field: 'sslEnabled' | 'sshEnabled') => (
      <CheckboxField
        {...common(field)}
        checked={values[field]}
        onChange={(event) => set(field, event.target.checked)}
        disabled={readOnly}
      />
    ),
  };
}

export type BoundFields = ReturnType<typeof boundFields>;
