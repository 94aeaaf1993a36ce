import type { ReactNode } from 'react';
import type { Messages } from '../provider/messages';
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

/** The field's label from the messages (they are keyed by field name), else its name. */
export const labelOf = (messages: Messages, field: string) => {
  const label = (messages as Record<string, unknown>)[field];
  return typeof label === 'string' ? label : field;
};

/** Field renderers bound to the form: value, change handler, label, id and error by name. */
export function boundFields(form: FormApi, messages: Messages, idOf: (field: string) => string) {
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
      />
    ),
    checkbox: (field: 'sslEnabled' | 'sshEnabled') => (
      <CheckboxField
        {...common(field)}
        checked={values[field]}
        onChange={(event) => set(field, event.target.checked)}
      />
    ),
  };
}

export type BoundFields = ReturnType<typeof boundFields>;
