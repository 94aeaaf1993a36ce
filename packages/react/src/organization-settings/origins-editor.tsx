import { useEffect, useId, useRef } from 'react';
import { describedBy, FieldMessages } from '../data-source-form/fields';
import type { OrganizationSettingsMessages } from './organization-settings-messages';
import type { OriginEntry } from './origins';

interface OriginsEditorProps {
  entries: OriginEntry[];
  errors: Record<number, string>;
  messages: OrganizationSettingsMessages;
  disabled: boolean;
  onChange: (entries: OriginEntry[]) => void;
  /** An entry lost focus: check it now. */
  onCheck: () => void;
}

/** The allowed origins, one input each, with Add and Remove; each entry shows its own error. */
export function OriginsEditor(props: OriginsEditorProps) {
  const { entries, errors, messages, disabled, onChange, onCheck } = props;
  const id = useId();
  const nextKey = useRef(entries.reduce((max, entry) => Math.max(max, entry.key), 0) + 1);
  // Where focus goes once the rows have re-rendered: a new row, or the one after a removed row.
  const focusNext = useRef<string | null>(null);
  useEffect(() => {
    if (focusNext.current === null) return;
    document.getElementById(focusNext.current)?.focus();
    focusNext.current = null;
  });
  const focusRow = (key: number | undefined) => {
    focusNext.current = key === undefined ? `${id}-add` : `${id}-${key}`;
  };

  const add = () => {
    const key = nextKey.current++;
    onChange([...entries, { key, value: '' }]);
    focusRow(key);
  };
  const remove = (at: number) => {
    onChange(entries.filter((_, i) => i !== at));
    focusRow((entries[at + 1] ?? entries[at - 1])?.key);
  };

  return (
    <fieldset className="bk-origins" aria-describedby={`${id}-hint`}>
      <legend className="bk-field__label">{messages.orgOrigins}</legend>
      <p id={`${id}-hint`} className="bk-field__hint">
        {messages.orgOriginsHint}
      </p>
      {entries.length === 0 && <p className="bk-origins__empty">{messages.orgOriginsEmpty}</p>}
      <ol className="bk-origins__list">
        {entries.map((entry, i) => {
          const inputId = `${id}-${entry.key}`;
          const error = errors[entry.key];
          return (
            <li key={entry.key} className="bk-origins__item" data-invalid={error ? '' : undefined}>
              <div className="bk-origins__row">
                <input
                  id={inputId}
                  className="bk-input"
                  type="url"
                  inputMode="url"
                  spellCheck={false}
                  autoComplete="off"
                  aria-label={messages.originLabel(i + 1)}
                  aria-invalid={error ? true : undefined}
                  aria-describedby={describedBy(inputId, error)}
                  value={entry.value}
                  readOnly={disabled}
                  onChange={(event) =>
                    onChange(
                      entries.map((e) =>
                        e.key === entry.key ? { ...e, value: event.currentTarget.value } : e,
                      ),
                    )
                  }
                  onBlur={onCheck}
                />
                {!disabled && (
                  <button
                    type="button"
                    className="bk-button bk-button--small"
                    aria-label={messages.removeOriginNamed(i + 1)}
                    onClick={() => remove(i)}
                  >
                    ×
                  </button>
                )}
              </div>
              <FieldMessages id={inputId} error={error} />
            </li>
          );
        })}
      </ol>
      {!disabled && (
        <button
          id={`${id}-add`}
          type="button"
          className="bk-button bk-button--small bk-origins__add"
          onClick={add}
        >
          {messages.addOrigin}
        </button>
      )}
    </fieldset>
  );
}
