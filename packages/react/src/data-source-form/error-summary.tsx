import { forwardRef } from 'react';
import type { FieldErrors } from './form-values';

interface ErrorSummaryProps {
  detail: string;
  fields: FieldErrors;
  idOf: (field: string) => string;
  /** The field's label, or undefined for a field the form does not show. */
  labelOf: (field: string) => string | undefined;
}

/**
 * The alert above the form: what failed, once, and a link to each field in error, named by its
 * label (the field says its own message). A field the form does not show keeps its message here.
 */
export const ErrorSummary = /* @__PURE__ */ forwardRef<HTMLDivElement, ErrorSummaryProps>(
  function ErrorSummary({ detail, fields, idOf, labelOf }, ref) {
    const entries = Object.entries(fields);
    return (
      <div ref={ref} className="bk-alert" role="alert" tabIndex={-1}>
        <p className="bk-alert__title">{detail}</p>
        {entries.length > 0 && (
          <ul className="bk-alert__list">
            {entries.map(([field, message]) => {
              const label = labelOf(field);
              return (
                <li key={field}>
                  {label ? <a href={`#${idOf(field)}`}>{label}</a> : `${field}: ${message}`}
                </li>
              );
            })}
          </ul>
        )}
      </div>
    );
  },
);
