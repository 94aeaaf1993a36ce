import type { Scenarios } from './scenario';

const staging = {
  dialect: 'POSTGRES',
  displayName: 'Staging',
  description: 'Read replica for dashboards',
  host: 'staging-db.acme.example',
  port: 5432,
  databaseName: 'analytics',
  username: 'reporting',
  password: 'example-password',
  sslEnabled: true,
};

export const dataSourceScenarios: Scenarios = {
  listDataSources: {
    call: (w) => ({ params: { orgId: w.org.id }, query: { limit: '20' } }),
    errors: {
      ValidationError: {
        summary: 'An empty cursor',
        call: (w) => ({ params: { orgId: w.org.id }, query: { cursor: '' } }),
      },
      NotFound: {
        summary: 'The caller is not a member of the organization',
        call: (w) => ({ as: 'outsider', params: { orgId: w.org.id } }),
      },
    },
  },
  createDataSource: {
    summary: 'Created; the password is stored encrypted and only named in storedSecrets',
    call: (w) => ({ params: { orgId: w.org.id }, body: staging }),
    errors: {
      ValidationError: {
        summary: 'A POSTGRES source without host and username',
        call: (w) => ({
          params: { orgId: w.org.id },
          body: { dialect: 'POSTGRES', displayName: 'Incomplete' },
        }),
      },
      NotFound: {
        summary: 'The caller is not a member of the organization',
        call: (w) => ({ as: 'outsider', params: { orgId: w.org.id }, body: staging }),
      },
      Forbidden: {
        summary: 'A MEMBER cannot create data sources',
        call: (w) => ({ as: 'member', params: { orgId: w.org.id }, body: staging }),
      },
    },
  },
  verifyDataSource: {
    summary: 'Connected and authenticated (to the PostgreSQL the examples run beside)',
    call: (w) => ({
      params: { orgId: w.org.id },
      body: { dialect: 'POSTGRES', ...w.verifyTarget },
    }),
    errors: {
      ValidationError: {
        summary: 'No username',
        call: (w) => ({
          params: { orgId: w.org.id },
          body: { dialect: 'POSTGRES', host: w.verifyTarget.host },
        }),
      },
      NotFound: {
        summary: 'The caller is not a member of the organization',
        call: (w) => ({
          as: 'outsider',
          params: { orgId: w.org.id },
          body: { dialect: 'POSTGRES', ...w.verifyTarget },
        }),
      },
      Forbidden: {
        summary: 'A MEMBER cannot verify',
        call: (w) => ({
          as: 'member',
          params: { orgId: w.org.id },
          body: { dialect: 'POSTGRES', ...w.verifyTarget },
        }),
      },
      VerificationFailed: {
        summary: 'The database does not exist',
        call: (w) => ({
          params: { orgId: w.org.id },
          body: { dialect: 'POSTGRES', ...w.verifyTarget, databaseName: 'no_such_database' },
        }),
      },
    },
  },
  getDataSource: {
    call: (w) => ({ params: { orgId: w.org.id, id: w.dataSource.id } }),
    errors: {
      NotFound: {
        summary: 'No such data source in the organization',
        call: (w) => ({ params: { orgId: w.org.id, id: 'ds_does_not_exist' } }),
      },
    },
  },
  updateDataSource: {
    summary: 'Changed the description and replaced the password',
    call: async (w) => ({
      params: { orgId: w.org.id, id: (await w.newDataSource('Sales replica')).id },
      body: { description: 'Nightly copy of the sales database', password: 'new-example-password' },
    }),
    errors: {
      ValidationError: {
        summary: 'A port out of range',
        call: (w) => ({ params: { orgId: w.org.id, id: w.dataSource.id }, body: { port: 70000 } }),
      },
      NotFound: {
        summary: 'No such data source in the organization',
        call: (w) => ({
          params: { orgId: w.org.id, id: 'ds_does_not_exist' },
          body: { description: 'x' },
        }),
      },
      Forbidden: {
        summary: 'A MEMBER cannot change data sources',
        call: (w) => ({
          as: 'member',
          params: { orgId: w.org.id, id: w.dataSource.id },
          body: { description: 'x' },
        }),
      },
    },
  },
  deleteDataSource: {
    summary: 'Deleted; the answer is the record as it was',
    call: async (w) => ({
      params: { orgId: w.org.id, id: (await w.newDataSource('Old warehouse')).id },
    }),
    errors: {
      NotFound: {
        summary: 'No such data source in the organization',
        call: (w) => ({ params: { orgId: w.org.id, id: 'ds_does_not_exist' } }),
      },
      Forbidden: {
        summary: 'A MEMBER cannot delete data sources',
        call: (w) => ({ as: 'member', params: { orgId: w.org.id, id: w.dataSource.id } }),
      },
    },
  },
  checkDataSourceHealth: {
    summary: 'Connected, ran SELECT 1 and closed: HEALTHY',
    call: (w) => ({ params: { orgId: w.org.id, id: w.warehouse.id } }),
    errors: {
      NotFound: {
        summary: 'No such data source in the organization',
        call: (w) => ({ params: { orgId: w.org.id, id: 'ds_does_not_exist' } }),
      },
      Forbidden: {
        summary: 'A MEMBER cannot run a health check',
        call: (w) => ({ as: 'member', params: { orgId: w.org.id, id: w.warehouse.id } }),
      },
    },
  },
  syncDataSource: {
    summary: 'Queued; the record as it stands (its last sync succeeded)',
    call: (w) => ({ params: { orgId: w.org.id, id: w.warehouse.id } }),
    errors: {
      NotFound: {
        summary: 'No such data source in the organization',
        call: (w) => ({ params: { orgId: w.org.id, id: 'ds_does_not_exist' } }),
      },
      Forbidden: {
        summary: 'A MEMBER cannot start a sync',
        call: (w) => ({ as: 'member', params: { orgId: w.org.id, id: w.warehouse.id } }),
      },
    },
  },
  getDataSourceSchema: {
    summary: 'The first two tables of the last catalog read; pass nextCursor for more',
    call: (w) => ({
      params: { orgId: w.org.id, id: w.warehouse.id },
      query: { limit: '2' },
    }),
    errors: {
      ValidationError: {
        summary: 'A cursor that no page gave',
        call: (w) => ({
          params: { orgId: w.org.id, id: w.warehouse.id },
          query: { cursor: 'orders' },
        }),
      },
      NotFound: {
        summary: 'No such data source in the organization',
        call: (w) => ({ params: { orgId: w.org.id, id: 'ds_does_not_exist' } }),
      },
    },
  },
};
