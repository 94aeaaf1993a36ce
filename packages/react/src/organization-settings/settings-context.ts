import type { BridgeContextValue } from '../provider/bridge-provider';
import type { CoreMessages } from '../provider/messages';
import type { OrganizationSettingsMessages } from './organization-settings-messages';

/** What `OrganizationSettings` gives its parts: the provider's value with its strings filled in. */
export type SettingsContext = BridgeContextValue & {
  messages: CoreMessages & OrganizationSettingsMessages;
};
