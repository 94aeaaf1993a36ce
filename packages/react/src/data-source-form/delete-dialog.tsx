import type { DataSource } from '@bridgekit/contract';
import * as Dialog from '@radix-ui/react-dialog';
import { useState } from 'react';
import { errorText, isAdminRequired } from '../internal/error-text';
import { rootProps } from '../internal/root-props';
import { useDialogTheme } from '../internal/use-dialog-theme';
import type { FormContextValue } from '../provider/bridge-provider';
import { refuseAdmin } from '../provider/session-store';

interface DeleteDialogProps {
  context: FormContextValue;
  unstyled: boolean | undefined;
  orgId: string;
  record: DataSource;
  onDeleted: (record: DataSource) => void;
}

/** The Delete button and its confirmation dialog. */
export function DeleteDialog({ context, unstyled, orgId, record, onDeleted }: DeleteDialogProps) {
  const { client, messages } = context;
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const dialogTheme = useDialogTheme<HTMLButtonElement>();

  const confirm = async () => {
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      const { data } = await client.deleteDataSource({ params: { orgId, id: record.id } });
      setOpen(false);
      onDeleted(data);
    } catch (caught) {
      if (isAdminRequired(caught)) {
        setOpen(false);
        refuseAdmin(client, orgId);
      } else setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog.Root
      open={open}
      onOpenChange={(next) => {
        if (next) dialogTheme.capture();
        setOpen(next);
        setError(null);
      }}
    >
      <Dialog.Trigger ref={dialogTheme.anchor} className="bk-button bk-button--danger">
        {messages.deleteDataSource}
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay {...rootProps(context, 'overlay', unstyled, '', dialogTheme.style)} />
        <Dialog.Content
          {...rootProps(context, 'dialog', unstyled, '', dialogTheme.style)}
          data-busy={busy ? '' : undefined}
        >
          <Dialog.Title className="bk-dialog__title">{messages.deleteTitle}</Dialog.Title>
          <Dialog.Description className="bk-dialog__description">
            {messages.deleteDescription(record.displayName)}
          </Dialog.Description>
          {error !== null && (
            <p className="bk-alert" role="alert">
              {errorText(error, messages, messages.deleteFailed)}
            </p>
          )}
          <div className="bk-dialog__actions">
            <Dialog.Close className="bk-button">{messages.cancel}</Dialog.Close>
            <button type="button" className="bk-button bk-button--danger" onClick={confirm}>
              {busy ? messages.deleting : messages.deleteConfirm}
            </button>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
