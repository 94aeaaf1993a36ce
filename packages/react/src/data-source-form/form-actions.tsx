import type { DataSource } from '@bridgekit/contract';
import type { FormContextValue } from '../provider/bridge-provider';
import type { Messages } from '../provider/messages';
import { DeleteDialog } from './delete-dialog';
import type { FormApi } from './use-form-state';

interface FormActionsProps {
  form: FormApi;
  context: FormContextValue;
  unstyled: boolean | undefined;
  orgId: string;
  idOf: (field: string) => string;
  /** False: no Test connection (the client cannot make it), and a note why. */
  canVerify: boolean;
  onDeleted: ((record: DataSource) => void) | undefined;
}

function statusText(state: string, messages: Messages) {
  if (state === 'verifying') return messages.testingConnection;
  if (state === 'verified') return messages.verified;
  if (state === 'saving') return messages.saving;
  if (state === 'saved') return messages.saved;
  return '';
}

/** The status line, why Save waits, and Test connection, Save and Delete. */
export function FormActions(props: FormActionsProps) {
  const { form, context, unstyled, orgId, idOf, canVerify, onDeleted } = props;
  const { messages } = context;
  const { record, modes, status, shownStatus, needsVerify, isVerified, canSave } = form;
  const waiting = needsVerify && !isVerified;
  const keptSecrets = Object.values(modes).includes('stored');
  return (
    <>
      {!canVerify && <p className="bk-notice">{messages.verifyNotAvailableSave}</p>}
      <p className="bk-data-source-form__status" role="status">
        {statusText(shownStatus, messages)}
      </p>
      {waiting && (
        <p id={idOf('save-hint')} className="bk-field__hint">
          {messages.verifyBeforeSave}
          {record && keptSecrets && ` ${messages.storedSecretsNotTested}`}
        </p>
      )}
      <div className="bk-data-source-form__actions">
        {canVerify && (
          <button type="button" className="bk-button" onClick={form.testConnection}>
            {status === 'verifying' ? messages.testingConnection : messages.testConnection}
          </button>
        )}
        <button
          type="submit"
          className="bk-button bk-button--primary"
          disabled={!canSave}
          aria-describedby={waiting ? idOf('save-hint') : undefined}
        >
          {status === 'saving' ? messages.saving : messages.save}
        </button>
        {record && (
          <DeleteDialog
            context={context}
            unstyled={unstyled}
            orgId={orgId}
            record={record}
            onDeleted={(deleted) => {
              form.markDeleted();
              onDeleted?.(deleted);
            }}
          />
        )}
      </div>
    </>
  );
}
