/** Strings of the bridge's own full-embed page (the kit's components bring theirs). */
export const embedMessages = {
  dataSources: 'Data sources',
  dataSourcesLoading: 'Loading data sources…',
  dataSourcesEmpty: 'No data sources yet.',
  dataSourcesLoadFailed: 'The data sources could not be loaded.',
  addDataSource: 'Add data source',
  edit: 'Edit',
  editNamed: (name: string) => `Edit ${name}`,
  editTitle: (name: string) => `Edit “${name}”`,
  closeEditor: 'Close',
  deletedNamed: (name: string) => `“${name}” was deleted.`,
  signedInAs: 'Signed in as',
  sessionEnded: 'Your session has ended. Reload the page to sign in again.',
};

export type EmbedMessages = typeof embedMessages;
