// Compiled by tsc under `exactOptionalPropertyTypes` (the tsconfig.json beside it, run by
// `npm run typecheck`): every optional prop and option of the kit takes an explicit
// `undefined`, as a host passing a value it may not have writes it (`dataSourceId={maybe}`).
import type { BridgeClient } from '@bridgekit/client';
import {
  BridgeProvider,
  DataSourceForm,
  MemberCard,
  type Messages,
  OrgPicker,
  type Theme,
} from '@bridgekit/react';

declare const client: BridgeClient;
declare const maybe: string | undefined;
declare const maybeMessages: Partial<Messages> | undefined;
declare const maybeTheme: Theme | undefined;
declare const maybeFlag: boolean | undefined;
const nothing = undefined;

export const provider = (
  <BridgeProvider client={client} messages={maybeMessages} theme={maybeTheme} unstyled={maybeFlag}>
    <DataSourceForm
      orgId="org_1"
      dataSourceId={maybe}
      dataSource={nothing}
      requireVerify={maybeFlag}
      onSaved={nothing}
      onDeleted={nothing}
      variant={nothing}
      unstyled={maybeFlag}
    />
    <OrgPicker
      value={maybe}
      defaultValue={maybe}
      onValueChange={nothing}
      pageSize={nothing}
      unstyled={maybeFlag}
    />
    <MemberCard orgId="org_1" memberId="mem_1" member={nothing} unstyled={maybeFlag} />
  </BridgeProvider>
);

export const byUrl = (
  <BridgeProvider
    baseUrl="https://bridge.example"
    getSessionToken={() => 'sess'}
    fetch={nothing}
    client={nothing}
  />
);

export const theme: Theme = {
  colorScheme: nothing,
  accent: maybe,
  accentText: maybe,
  radius: nothing,
  font: maybe,
  fontSize: nothing,
  density: nothing,
  vars: nothing,
};
