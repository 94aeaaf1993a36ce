import type { DataSource } from '@bridgekit/contract';
import { type ComponentPropsWithoutRef, forwardRef } from 'react';
import { errorText, isNotFound } from '../internal/error-text';
import { rootProps } from '../internal/root-props';
import { useResource } from '../internal/use-resource';
import { useBridgeContext } from '../provider/bridge-provider';
import { FormBody } from './form-body';

export type DataSourceFormProps = Omit<
  ComponentPropsWithoutRef<'form'>,
  'onSubmit' | 'children'
> & {
  orgId: string;
  /** Edit this data source (loaded with `getDataSource`); without it the form creates one. */
  dataSourceId?: string;
  /** Edit this record as given, without loading it. */
  dataSource?: DataSource;
  /** Save only after the current connection values passed "Test connection". Default true. */
  requireVerify?: boolean;
  /** After a create or update succeeded, with the record the server returned. */
  onSaved?: (record: DataSource) => void;
  /** After a delete succeeded, with the deleted record. */
  onDeleted?: (record: DataSource) => void;
  /** Leave out the kit's styles for this component. */
  unstyled?: boolean;
};

/**
 * Create or edit a PostgreSQL data source: test the connection, then save.
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
      unstyled,
      className,
      ...rest
    } = props;
    const context = useBridgeContext('DataSourceForm');
    const { client, messages } = context;
    const key = dataSource || !dataSourceId ? null : `${orgId}/${dataSourceId}`;
    const loaded = useResource(key, (signal) =>
      client.getDataSource({ params: { orgId, id: dataSourceId ?? '' }, signal }),
    );
    const root = { ...rest, ...rootProps(context, 'data-source-form', unstyled, className), ref };
    const record = dataSource ?? loaded.data?.data ?? null;

    if (key && !record) {
      if (loaded.status === 'error') {
        const notFound = isNotFound(loaded.error);
        return (
          <form {...root} data-state={notFound ? 'not-found' : 'error'}>
            <div className="bk-alert" role="alert">
              <p>
                {notFound
                  ? messages.dataSourceNotFound
                  : errorText(loaded.error, messages, messages.dataSourceLoadFailed)}
              </p>
              {!notFound && (
                <button type="button" className="bk-button" onClick={loaded.retry}>
                  {messages.retry}
                </button>
              )}
            </div>
          </form>
        );
      }
      return (
        <form {...root} data-state="loading" aria-busy="true">
          <p className="bk-data-source-form__status" role="status">
            {messages.dataSourceLoading}
          </p>
          <span className="bk-skeleton bk-skeleton--block" />
        </form>
      );
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
        onSaved={onSaved}
        onDeleted={onDeleted}
      />
    );
  },
);
