import type { Ref } from 'react';
import { errorText, isNotFound } from '../internal/error-text';
import type { Messages } from '../provider/messages';

type RootProps = { className: string; ref: Ref<HTMLFormElement> } & Record<string, unknown>;

/** Waiting for the record or for the caller's role. */
export function FormLoading({ root, messages }: { root: RootProps; messages: Messages }) {
  return (
    <form {...root} data-state="loading" aria-busy="true">
      <p className="bk-data-source-form__status" role="status">
        {messages.dataSourceLoading}
      </p>
      <span className="bk-skeleton bk-skeleton--block" />
    </form>
  );
}

interface FormLoadErrorProps {
  root: RootProps;
  messages: Messages;
  error: unknown;
  retry: () => void;
}

/** The record could not be loaded: not found, or another failure with Try again. */
export function FormLoadError({ root, messages, error, retry }: FormLoadErrorProps) {
  const notFound = isNotFound(error);
  return (
    <form {...root} data-state={notFound ? 'not-found' : 'error'}>
      <div className="bk-alert" role="alert">
        <p>
          {notFound
            ? messages.dataSourceNotFound
            : errorText(error, messages, messages.dataSourceLoadFailed)}
        </p>
        {!notFound && (
          <button type="button" className="bk-button" onClick={retry}>
            {messages.retry}
          </button>
        )}
      </div>
    </form>
  );
}

/**
 * The caller cannot add a data source here (a MEMBER, or a client whose proxy does not forward
 * it): say why there is nothing to fill in, before anything is typed.
 */
export function FormCannotCreate({ root, text }: { root: RootProps; text: string }) {
  return (
    <form {...root} data-state="read-only">
      <p className="bk-notice" role="status">
        {text}
      </p>
    </form>
  );
}
