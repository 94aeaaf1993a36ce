import * as Dialog from '@radix-ui/react-dialog';
import { type ReactNode, useState } from 'react';
import type { BridgeContextValue } from '../provider/bridge-provider';
import { errorText } from './error-text';
import { rootProps } from './root-props';
import { useDialogTheme } from './use-dialog-theme';

interface ConfirmDialogProps {
  context: BridgeContextValue;
  unstyled: boolean | undefined;
  /** The button that opens the dialog: its text, accessible name and look. */
  trigger: { label: string; name?: string; className: string; describedBy?: string };
  /** A trigger that explains (through `describedBy`) why it does nothing now. */
  blocked?: boolean;
  title: string;
  description: string;
  confirm: string;
  busyText: string;
  failedText: string;
  /** Extra content between the description and the actions (a typed confirmation). */
  children?: ReactNode;
  /** False keeps the confirm button inert (a typed confirmation that does not match yet). */
  ready?: boolean;
  /** Runs the action; a throw is shown in the dialog, which stays open. */
  onConfirm: () => Promise<void>;
  onOpenChange?: (open: boolean) => void;
}

/** A button and the confirmation dialog it opens for a destructive action. */
export function ConfirmDialog(props: ConfirmDialogProps) {
  const { context, unstyled, trigger, blocked, title, description, ready = true } = props;
  const { messages } = context;
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const dialogTheme = useDialogTheme<HTMLButtonElement>();

  const run = async () => {
    if (busy || !ready) return;
    setBusy(true);
    setError(null);
    try {
      await props.onConfirm();
      setOpen(false);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  const change = (next: boolean) => {
    if (next && blocked) return;
    if (next) dialogTheme.capture();
    setOpen(next);
    setError(null);
    props.onOpenChange?.(next);
  };

  return (
    <Dialog.Root open={open} onOpenChange={change}>
      <Dialog.Trigger
        ref={dialogTheme.anchor}
        className={trigger.className}
        aria-label={trigger.name}
        aria-disabled={blocked || undefined}
        aria-describedby={trigger.describedBy}
      >
        {trigger.label}
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay {...rootProps(context, 'overlay', unstyled, '', dialogTheme.style)} />
        <Dialog.Content
          {...rootProps(context, 'dialog', unstyled, '', dialogTheme.style)}
          data-busy={busy ? '' : undefined}
        >
          <Dialog.Title className="bk-dialog__title">{title}</Dialog.Title>
          <Dialog.Description className="bk-dialog__description">{description}</Dialog.Description>
          {props.children}
          {error !== null && (
            <p className="bk-alert" role="alert">
              {errorText(error, messages, props.failedText)}
            </p>
          )}
          <div className="bk-dialog__actions">
            <Dialog.Close className="bk-button">{messages.cancel}</Dialog.Close>
            <button
              type="button"
              className="bk-button bk-button--danger"
              aria-disabled={!ready || undefined}
              onClick={run}
            >
              {busy ? props.busyText : props.confirm}
            </button>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
