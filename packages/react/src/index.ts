export { type BridgeClient, BridgeError, createClient, isBridgeError } from '@bridgekit/client';
export { DataSourceForm, type DataSourceFormProps } from './data-source-form/data-source-form';
export { MemberCard, type MemberCardProps } from './member-card/member-card';
export { OrgPicker, type OrgPickerProps } from './org-picker/org-picker';
export {
  type BridgeContextValue,
  BridgeProvider,
  type BridgeProviderProps,
  type Theme,
  useBridge,
} from './provider/bridge-provider';
export { defaultMessages, type Messages } from './provider/messages';
