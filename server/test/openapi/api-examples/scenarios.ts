import { dataSourceScenarios } from './data-sources';
import { embedScenarios } from './embed';
import { memberScenarios } from './members';
import { organizationScenarios } from './organizations';
import type { Scenarios } from './scenario';
import { serviceScenarios } from './service';
import { ssoScenarios } from './sso';
import { webhookScenarios } from './webhooks';

/** Every route's scenario: a new resource's file is added here. */
export const scenarios: Scenarios = {
  ...organizationScenarios,
  ...memberScenarios,
  ...dataSourceScenarios,
  ...webhookScenarios,
  ...ssoScenarios,
  ...embedScenarios,
  ...serviceScenarios,
};
