import { canCall } from '@bridgekit/client';
import type { DataSource } from '@bridgekit/contract';
import { type ComponentPropsWithoutRef, forwardRef, useMemo, useRef } from 'react';
import { rootProps } from '../internal/root-props';
import { useResource } from '../internal/use-resource';
import { useBridgeContext } from '../provider/bridge-provider';
import { withFormMessages } from '../provider/messages';
import { useAccess } from '../provider/use-access';
import { FormBody } from './form-body';
import { FormCannotCreate, FormLoadError, FormLoading } from './form-states';

export type DataSourceFormProps = Omit<
  ComponentPropsWithoutRef<'form'>,
  'onSubmit' | 'children'
> & {
  orgId: string;
  /** Edit this data source (loaded with `getDataSource`); without it the form creates one. */
  dataSourceId?: string | undefined;
  /** Edit this record as given, without loading it. */
  dataSource?: DataSource | undefined;
  /** Save only after the current connection values passed "Test connection". Default true. */
  requireVerify?: boolean | undefined;
  /** After a create or update succeeded, with the record the server returned. */
  onSaved?: ((record: DataSource) => void) | undefined;
  /** After a delete succeeded, with the deleted record. */
  onDeleted?: ((record: DataSource) => void) | undefined;
  /** `framed` (default) draws the form's own card; `plain` leaves the frame to your panel. */
  variant?: 'framed' | 'plain' | undefined;
  /** Leave out the kit's styles for this component. */
  unstyled?: boolean | undefined;
};

/**
 * Create or edit a PostgreSQL or MySQL data source (a new one can start from a pasted
 * connection string): test the connection, then save. The caller's role
 * comes from the bridge's session: a MEMBER sees the record read-only and is told why; an
 * ADMIN demoted while filling it in keeps what they typed, read-only, and is told why.
 *
 * @example
 * <DataSourceForm orgId={orgId} onSaved={(record) => navigate(`/sources/${record.id}`)} />
 */
export const DataSourceForm = /* @__PURE__ */ forwardRef<HTMLFormElement, DataSourceFormProps>(
  function DataSourceForm(props, ref) {
    const {
      orgId,
      dataSourceId,
      dataSource,
      requireVerify = true,
      onSaved,
      onDeleted,
      variant = 'framed',
      unstyled,
      className,
      ...rest
    } = props;
    const bridge = useBridgeContext('DataSourceForm');
    const context = useMemo(
      () => ({ ...bridge, messages: withFormMessages(bridge.messages) }),
      [bridge],
    );
    const { client, messages } = context;
    const access = useAccess(context, orgId);
    // Once editable, a form that loses the right (the role changed mid-form) keeps its values.
    const wasEditable = useRef(false);
    if (access.status === 'ready' && access.canEdit) wasEditable.current = true;
    const roleChanged = access.status === 'ready' && !access.canEdit && wasEditable.current;
    // A client that cannot make the calls (a proxy that does not forward them) says so up front.
    const canVerify = canCall(client, 'verifyDataSource');
    const editing = Boolean(dataSource || dataSourceId);
    const unavailable = !canCall(client, editing ? 'updateDataSource' : 'createDataSource')
      ? messages.saveNotAvailable
      : !canVerify && requireVerify
        ? messages.verifyNotAvailable
        : null;
    const key = dataSource || !dataSourceId ? null : `${orgId}/${dataSourceId}`;
    const loaded = useResource(key, (signal) =>
      client.getDataSource({ params: { orgId, id: dataSourceId ?? '' }, signal }),
    );
    const root = {
      ...rest,
      ...rootProps(context, 'data-source-form', unstyled, className, rest.style),
      'data-variant': variant,
      ref,
    };
    const record = dataSource ?? loaded.data?.data ?? null;

    if (key && !record && loaded.status === 'error') {
      return (
        <FormLoadError root={root} messages={messages} error={loaded.error} retry={loaded.retry} />
      );
    }
    if ((key && !record) || access.status === 'loading') {
      return <FormLoading root={root} messages={messages} />;
    }
    if (!record && unavailable) return <FormCannotCreate root={root} text={unavailable} />;
    if (!access.canEdit && !record && !roleChanged) {
      return <FormCannotCreate root={root} text={messages.readOnlyCreate} />;
    }

    return (
      <FormBody
        key={record?.id ?? 'new'}
        root={root}
        context={context}
        unstyled={unstyled}
        orgId={orgId}
        initialRecord={record}
        requireVerify={requireVerify}
        readOnly={!access.canEdit || unavailable !== null}
        roleChanged={roleChanged}
        notice={roleChanged ? messages.readOnlyRoleChanged : (unavailable ?? messages.readOnly)}
        canVerify={canVerify}
        onSaved={onSaved}
        onDeleted={onDeleted}
      />
    );
  },
);
