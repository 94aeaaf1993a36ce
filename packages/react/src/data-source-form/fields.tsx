import type { ComponentPropsWithoutRef, ReactNode } from 'react';
import { cx } from '../internal/cx';

export interface FieldProps {
  id: string;
  label: string;
  error?: string | undefined;
  hint?: ReactNode | undefined;
  children?: ReactNode | undefined;
}

/** `aria-describedby` for a control: its error and hint, when present. */
export const describedBy = (id: string, error?: string, hint?: ReactNode) =>
  cx(error ? `${id}-error` : null, hint ? `${id}-hint` : null) || undefined;

export function FieldMessages({ id, error, hint }: Pick<FieldProps, 'id' | 'error' | 'hint'>) {
  return (
    <>
      {hint && (
        <p id={`${id}-hint`} className="bk-field__hint">
          {hint}
        </p>
      )}
      {error && (
        <p id={`${id}-error`} className="bk-field__error">
          {error}
        </p>
      )}
    </>
  );
}

type InputProps = FieldProps & Omit<ComponentPropsWithoutRef<'input'>, 'id' | 'children'>;

/** A labelled text input with its hint and error. */
export function TextField({ id, label, error, hint, className, ...input }: InputProps) {
  return (
    <div className={cx('bk-field', className)} data-invalid={error ? '' : undefined}>
      <label className="bk-field__label" htmlFor={id}>
        {label}
      </label>
      <input
        id={id}
        className="bk-input"
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, error, hint)}
        {...input}
      />
      <FieldMessages id={id} error={error} hint={hint} />
    </div>
  );
}

/** A checkbox with its label to the right. */
export function CheckboxField({ id, label, error, hint, className, ...input }: InputProps) {
  return (
    <div
      className={cx('bk-field bk-field--checkbox', className)}
      data-invalid={error ? '' : undefined}
    >
      <input
        id={id}
        type="checkbox"
        className="bk-checkbox"
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, error, hint)}
        {...input}
      />
      <label className="bk-field__label" htmlFor={id}>
        {label}
      </label>
      <FieldMessages id={id} error={error} hint={hint} />
    </div>
  );
}

/** A button-looking file picker that hands over the file's text. */
export function FileButton({ label, onLoad }: { label: string; onLoad: (text: string) => void }) {
  return (
    <label className="bk-file">
      <span className="bk-button bk-button--small">{label}</span>
      <input
        type="file"
        className="bk-visually-hidden"
        onChange={async (event) => {
          const input = event.currentTarget;
          const file = input.files?.[0];
          if (file) onLoad(await file.text());
          input.value = '';
        }}
      />
    </label>
  );
}
