export { type BridgeClient, BridgeError, createClient, isBridgeError } from '@bridgekit/client';
export { BridgeEmbed, type BridgeEmbedProps, type SessionEnded } from './bridge-embed/bridge-embed';
export { DataSourceForm, type DataSourceFormProps } from './data-source-form/data-source-form';
export { DataSourceList, type DataSourceListProps } from './data-source-list/data-source-list';
export { MemberCard, type MemberCardProps } from './member-card/member-card';
export { MemberList, type MemberListProps } from './member-list/member-list';
export { OrgPicker, type OrgPickerProps } from './org-picker/org-picker';
export {
  OrganizationSettings,
  type OrganizationSettingsProps,
} from './organization-settings/organization-settings';
export {
  type BridgeContextValue,
  BridgeProvider,
  type BridgeProviderProps,
  useBridge,
} from './provider/bridge-provider';
export {
  defaultMessages,
  type FailureText,
  type Messages,
  type ProviderMessages,
} from './provider/messages';
export type { SessionState } from './provider/session-store';
export type { ColorScheme, Density, Theme } from './provider/theme';
export { useBridgeSession } from './provider/use-access';
export {
  SchemaBrowser,
  type SchemaBrowserProps,
} from './schema-browser/schema-browser';
