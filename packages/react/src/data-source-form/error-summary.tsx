import { forwardRef } from 'react';
import type { FieldErrors } from './form-values';

interface ErrorSummaryProps {
  detail: string;
  fields: FieldErrors;
  idOf: (field: string) => string;
  labelOf: (field: string) => string;
}

/** The alert above the form: what failed, and a link to each field with an error. */
export const ErrorSummary = forwardRef<HTMLDivElement, ErrorSummaryProps>(function ErrorSummary(
  { detail, fields, idOf, labelOf },
  ref,
) {
  const entries = Object.entries(fields);
  return (
    <div ref={ref} className="bk-alert" role="alert" tabIndex={-1}>
      <p className="bk-alert__title">{detail}</p>
      {entries.length > 0 && (
        <ul className="bk-alert__list">
          {entries.map(([field, message]) => (
            <li key={field}>
              <a href={`#${idOf(field)}`}>
                {labelOf(field)}: {message}
              </a>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
});
