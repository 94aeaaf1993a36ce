/** `OrgPicker`'s strings: it adds them under the provider's messages itself. */
export const orgPickerMessages = {
  orgPickerPlaceholder: 'Select an organization',
  orgPickerTitle: 'Select an organization',
  orgSearchLabel: 'Search organizations',
  orgSearchPlaceholder: 'Search by name or slug',
  orgListLabel: 'Organizations',
  orgsLoading: 'Loading organizations…',
  orgsEmpty: 'No organizations yet.',
  orgsNoMatch: (query: string) => `No organizations match “${query}”.`,
  orgsLoadFailed: 'The organizations could not be loaded.',
};

export type OrgPickerMessages = typeof orgPickerMessages;
