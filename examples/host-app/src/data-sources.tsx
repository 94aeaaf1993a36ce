import type { DataSource } from '@bridgekit/contract';
import { DataSourceForm, useBridge } from '@bridgekit/react';
import { useCallback, useEffect, useState } from 'react';

/** The organization's data sources, read with the kit's client (`useBridge`). */
function useDataSources(orgId: string) {
  const { client } = useBridge();
  const [sources, setSources] = useState<DataSource[] | null>(null);
  const reload = useCallback(() => {
    client.listDataSources({ params: { orgId } }).then(
      (page) => setSources(page.data),
      () => setSources([]),
    );
  }, [client, orgId]);
  useEffect(reload, [reload]);
  return { sources, reload };
}

function DataSourceList({ sources }: { sources: DataSource[] | null }) {
  if (sources === null) return <p role="status">Loading data sources…</p>;
  if (sources.length === 0) return <p>No data sources yet.</p>;
  return (
    <ul aria-label="Data sources" className="host-list">
      {sources.map((source) => (
        <li key={source.id}>
          <strong>{source.displayName}</strong> {source.host}:{source.port}
        </li>
      ))}
    </ul>
  );
}

/** ADMINs add data sources; MEMBERs see the list and who to ask. */
export function DataSources({ orgId, canEdit }: { orgId: string; canEdit: boolean }) {
  const { sources, reload } = useDataSources(orgId);
  const [formKey, setFormKey] = useState(0);
  return (
    <section aria-labelledby="data-sources-heading" className="host-panel">
      <h2 id="data-sources-heading">Data sources</h2>
      <DataSourceList sources={sources} />
      {canEdit ? (
        <>
          <button type="button" className="host-new" onClick={() => setFormKey((key) => key + 1)}>
            New data source
          </button>
          <DataSourceForm
            key={formKey}
            aria-label="New data source"
            orgId={orgId}
            onSaved={reload}
            onDeleted={reload}
          />
        </>
      ) : (
        <p>Members can see the data sources; an admin of the organization adds and edits them.</p>
      )}
    </section>
  );
}
