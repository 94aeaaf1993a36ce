import type { DataSource } from '@bridgekit/contract';
import * as Dialog from '@radix-ui/react-dialog';
import { useState } from 'react';
import { errorText } from '../internal/error-text';
import { rootProps } from '../internal/root-props';
import type { BridgeContextValue } from '../provider/bridge-provider';

interface DeleteDialogProps {
  context: BridgeContextValue;
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

  const confirm = async () => {
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      const { data } = await client.deleteDataSource({ params: { orgId, id: record.id } });
      setOpen(false);
      onDeleted(data);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog.Root
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        setError(null);
      }}
    >
      <Dialog.Trigger className="bk-button bk-button--danger">
        {messages.deleteDataSource}
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay {...rootProps(context, 'overlay', unstyled)} />
        <Dialog.Content
          {...rootProps(context, 'dialog', unstyled)}
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
