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
  multiline?: boolean | undefined;
  /** Extra controls shown while a new value can be entered (the key file picker). */
  extra?: ReactNode | undefined;
  /** Show whether a value is stored, with no way to change it. */
  readOnly?: boolean | undefined;
}

/** A small button named after what it does to which secret ("Replace Password"). */
function SecretAction(props: {
  text: string;
  label: string;
  messages: Messages;
  onClick: () => void;
}) {
  return (
    <button
      type="button"
      className="bk-button bk-button--small"
      onClick={props.onClick}
      aria-label={props.messages.secretAction(props.text, props.label)}
    >
      {props.text}
    </button>
  );
}

/** A stored secret, or one marked for removal: a badge and Replace/Remove, or Undo. */
function StoredSecret(props: SecretFieldProps & { onReplace: () => void }) {
  const { id, label, mode, onModeChange, error, messages, onReplace, readOnly } = props;
  const stored = mode === 'stored';
  if (readOnly) {
    return (
      <fieldset id={id} className="bk-field bk-secret" data-state={mode ?? 'none'}>
        <legend className="bk-field__label">{label}</legend>
        <span className="bk-secret__row">
          <span className="bk-badge" data-variant={stored ? 'stored' : undefined}>
            {stored ? messages.secretStored : messages.secretNotSet}
          </span>
        </span>
      </fieldset>
    );
  }
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
        <span className="bk-badge" data-variant={stored ? 'stored' : 'danger'}>
          {stored ? messages.secretStored : messages.secretWillBeRemoved}
        </span>
        {stored ? (
          <>
            <SecretAction
              messages={messages}
              text={messages.secretReplace}
              label={label}
              onClick={onReplace}
            />
            <SecretAction
              messages={messages}
              text={messages.secretRemove}
              label={label}
              onClick={() => onModeChange('remove')}
            />
          </>
        ) : (
          <SecretAction
            messages={messages}
            text={messages.secretUndo}
            label={label}
            onClick={() => onModeChange('stored')}
          />
        )}
      </span>
      <FieldMessages id={id} error={error} />
    </fieldset>
  );
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

  if (mode === 'stored' || mode === 'remove' || props.readOnly) {
    const onReplace = () => {
      replacing.current = true;
      onModeChange('replace');
    };
    return <StoredSecret {...props} onReplace={onReplace} />;
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
        <SecretAction
          messages={messages}
          text={messages.secretKeep}
          label={label}
          onClick={() => {
            onChange('');
            onModeChange('stored');
          }}
        />
      )}
      <FieldMessages id={id} error={error} />
    </div>
  );
}
