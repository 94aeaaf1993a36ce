import type { Organization } from '@bridgekit/contract';
import * as Dialog from '@radix-ui/react-dialog';
import { type ComponentPropsWithoutRef, forwardRef, useState } from 'react';
import { rootProps } from '../internal/root-props';
import { useControllable } from '../internal/use-controllable';
import { useDialogTheme } from '../internal/use-dialog-theme';
import { useResource } from '../internal/use-resource';
import { useBridgeContext } from '../provider/bridge-provider';
import { OrgList } from './org-list';
import { useOrgPages } from './use-org-pages';

export type OrgPickerProps = Omit<
  ComponentPropsWithoutRef<'button'>,
  'value' | 'defaultValue' | 'onChange' | 'children'
> & {
  /** The selected organization id (controlled). */
  value?: string | null | undefined;
  /** The initially selected organization id (uncontrolled). */
  defaultValue?: string | null | undefined;
  onValueChange?: ((orgId: string, organization: Organization) => void) | undefined;
  /** Organizations per request, 1 to 100. Default 50. */
  pageSize?: number | undefined;
  /** Leave out the kit's styles for this component. */
  unstyled?: boolean | undefined;
};

/**
 * A button showing the current organization that opens a searchable, paginated list.
 *
 * @example
 * <OrgPicker value={orgId} onValueChange={(id) => setOrgId(id)} />
 */
export const OrgPicker = /* @__PURE__ */ forwardRef<HTMLButtonElement, OrgPickerProps>(
  function OrgPicker(props, ref) {
    const {
      value: valueProp,
      defaultValue = null,
      onValueChange,
      pageSize = 50,
      unstyled,
      className,
      ...rest
    } = props;
    const context = useBridgeContext('OrgPicker');
    const { client, messages } = context;
    const [value, setValue] = useControllable(valueProp, defaultValue);
    const [open, setOpen] = useState(false);
    const dialogTheme = useDialogTheme(ref);
    const [picked, setPicked] = useState<Organization | null>(null);
    const pages = useOrgPages(client, pageSize);

    const known =
      picked?.id === value ? picked : (pages.items.find((org) => org.id === value) ?? undefined);
    const fetched = useResource(value && !known ? value : null, (signal) =>
      client.getOrganization({ params: { orgId: value ?? '' }, signal }),
    );
    const current = known ?? fetched.data?.data;

    const select = (organization: Organization) => {
      setPicked(organization);
      setValue(organization.id);
      onValueChange?.(organization.id, organization);
      setOpen(false);
    };

    return (
      <Dialog.Root
        open={open}
        onOpenChange={(next) => {
          if (next) dialogTheme.capture();
          setOpen(next);
        }}
      >
        <Dialog.Trigger asChild>
          <button
            type="button"
            {...rest}
            {...rootProps(context, 'org-picker', unstyled, className, rest.style)}
            ref={dialogTheme.anchor}
            data-value={current ? 'selected' : 'none'}
          >
            <span className="bk-org-picker__current">
              {current?.name ?? messages.orgPickerPlaceholder}
            </span>
            <svg
              className="bk-org-picker__chevron"
              viewBox="0 0 16 16"
              width="16"
              height="16"
              aria-hidden="true"
            >
              <path d="M4 6l4 4 4-4" fill="none" stroke="currentColor" strokeWidth="1.5" />
            </svg>
          </button>
        </Dialog.Trigger>
        <Dialog.Portal>
          <Dialog.Overlay {...rootProps(context, 'overlay', unstyled, '', dialogTheme.style)} />
          <Dialog.Content
            {...rootProps(context, 'dialog', unstyled, 'bk-org-picker__dialog', dialogTheme.style)}
            aria-describedby={undefined}
          >
            <Dialog.Title className="bk-dialog__title">{messages.orgPickerTitle}</Dialog.Title>
            <OrgList pages={pages} selectedId={value} onSelect={select} messages={messages} />
            <Dialog.Close className="bk-button bk-dialog__close">{messages.close}</Dialog.Close>
          </Dialog.Content>
        </Dialog.Portal>
      </Dialog.Root>
    );
  },
);
