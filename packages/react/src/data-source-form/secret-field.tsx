import { type ReactNode, useEffect, useRef } from 'react';
import { cx } from '../internal/cx';
import type { Messages } from '../provider/messages';
import { describedBy, FieldMessages } from './fields';
import type { SecretMode } from './form-values';

interface SecretFieldProps {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  /** Undefined when nothing is stored for this secret. */
  mode: SecretMode | undefined;
  onModeChange: (mode: SecretMode) => void;
  error?: string | undefined;
  messages: Messages;
  multiline?: boolean;
  /** Extra controls shown while a new value can be entered (the key file picker). */
  extra?: ReactNode;
}

/** A secret input; a stored secret shows as "Stored" with Replace and Remove instead. */
export function SecretField(props: SecretFieldProps) {
  const { id, label, value, onChange, mode, onModeChange, error, messages, multiline, extra } =
    props;
  const inputRef = useRef<HTMLInputElement & HTMLTextAreaElement>(null);
  const replacing = useRef(false);

  useEffect(() => {
    if (mode === 'replace' && replacing.current) inputRef.current?.focus();
    replacing.current = false;
  }, [mode]);

  if (mode === 'stored' || mode === 'remove') {
    return (
      <fieldset
        id={id}
        className="bk-field bk-secret"
        aria-describedby={describedBy(id, error)}
        data-state={mode}
        data-invalid={error ? '' : undefined}
      >
        <legend className="bk-field__label">{label}</legend>
        <span className="bk-secret__row">
          <span className="bk-badge" data-variant={mode === 'stored' ? 'stored' : 'danger'}>
            {mode === 'stored' ? messages.secretStored : messages.secretWillBeRemoved}
          </span>
          {mode === 'stored' ? (
            <>
              <button
                type="button"
                className="bk-button bk-button--small"
                onClick={() => {
                  replacing.current = true;
                  onModeChange('replace');
                }}
                aria-label={`${messages.secretReplace} ${label}`}
              >
                {messages.secretReplace}
              </button>
              <button
                type="button"
                className="bk-button bk-button--small"
                onClick={() => onModeChange('remove')}
                aria-label={`${messages.secretRemove} ${label}`}
              >
                {messages.secretRemove}
              </button>
            </>
          ) : (
            <button
              type="button"
              className="bk-button bk-button--small"
              onClick={() => onModeChange('stored')}
              aria-label={`${messages.secretUndo} ${label}`}
            >
              {messages.secretUndo}
            </button>
          )}
        </span>
        <FieldMessages id={id} error={error} />
      </fieldset>
    );
  }

  const control = {
    ref: inputRef,
    id,
    className: cx('bk-input', multiline && 'bk-textarea'),
    value,
    onChange: (event: { target: { value: string } }) => onChange(event.target.value),
    autoComplete: 'off',
    spellCheck: false,
    'aria-invalid': error ? true : undefined,
    'aria-describedby': describedBy(id, error),
  };
  return (
    <div
      className="bk-field bk-secret"
      data-state={mode ?? 'new'}
      data-invalid={error ? '' : undefined}
    >
      <label className="bk-field__label" htmlFor={id}>
        {label}
      </label>
      {multiline ? <textarea rows={4} {...control} /> : <input type="password" {...control} />}
      {extra}
      {mode === 'replace' && (
        <button
          type="button"
          className="bk-button bk-button--small"
          onClick={() => {
            onChange('');
            onModeChange('stored');
          }}
          aria-label={`${messages.secretKeep} ${label}`}
        >
          {messages.secretKeep}
        </button>
      )}
      <FieldMessages id={id} error={error} />
    </div>
  );
}
