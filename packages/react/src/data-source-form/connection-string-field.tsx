import { useRef, useState } from 'react';
import type { FormMessages } from '../provider/messages';
import { type ParsedConnection, parseConnectionString } from './connection-string';
import { describedBy, FieldMessages } from './fields';

interface ConnectionStringFieldProps {
  id: string;
  messages: FormMessages;
  onParsed: (parsed: ParsedConnection) => void;
}

/**
 * Fills the connection fields from a pasted (or typed, then "Fill in") connection string. The
 * input is masked and emptied once read: the string, password included, is never shown again,
 * kept in state or sent anywhere; only the fields it filled are.
 */
export function ConnectionStringField({ id, messages, onParsed }: ConnectionStringFieldProps) {
  const input = useRef<HTMLInputElement>(null);
  const [error, setError] = useState<string>();
  const [filled, setFilled] = useState(false);
  const read = (text: string) => {
    if (input.current) input.current.value = '';
    const result = parseConnectionString(text);
    setFilled(result.ok);
    if (result.ok) {
      setError(undefined);
      onParsed(result.value);
    } else if (text.trim()) {
      setError(
        result.reason === 'scheme'
          ? messages.connectionStringScheme
          : messages.connectionStringInvalid,
      );
    }
  };
  const hint = messages.connectionStringHint;
  return (
    <div className="bk-field" data-invalid={error ? '' : undefined}>
      <label className="bk-field__label" htmlFor={id}>
        {messages.connectionString}
      </label>
      <span className="bk-paste">
        <input
          id={id}
          ref={input}
          type="password"
          className="bk-input"
          autoComplete="off"
          spellCheck={false}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy(id, error, hint)}
          onChange={() => {
            setError(undefined);
            setFilled(false);
          }}
          onPaste={(event) => {
            event.preventDefault();
            read(event.clipboardData.getData('text'));
          }}
          onKeyDown={(event) => {
            if (event.key !== 'Enter') return;
            event.preventDefault();
            read(event.currentTarget.value);
          }}
        />
        <button
          type="button"
          className="bk-button bk-button--small"
          onClick={() => read(input.current?.value ?? '')}
        >
          {messages.connectionStringFill}
        </button>
      </span>
      <FieldMessages id={id} error={error} hint={hint} />
      <p className="bk-field__hint" aria-live="polite">
        {filled ? messages.connectionStringFilled : ''}
      </p>
    </div>
  );
}
