import type { DataSource } from '@bridgekit/contract';
import { DEFAULT_PORTS, type FormDialect, type ParsedConnection } from './connection-string';
import {
  changesConnection,
  droppedSecrets,
  type FieldErrors,
  type FormSecret,
  type FormValues,
  type SecretMode,
  type SecretModes,
  secretModesOf,
  toUpdateBody,
  toVerifyBody,
  valuesOf,
} from './form-values';

export type FormStatus =
  | 'idle'
  | 'verifying'
  | 'verified'
  | 'invalid'
  | 'saving'
  | 'saved'
  | 'deleted';

/** What the alert above the form says, and the message of each field in error. */
export interface FormErrors {
  detail: string;
  fields: FieldErrors;
}

export interface FormState {
  /** The saved record being edited; null until a new one is created. */
  record: DataSource | null;
  values: FormValues;
  modes: SecretModes;
  status: FormStatus;
  /** The verify body (as JSON) that last passed "Test connection". */
  verifiedKey: string | null;
  errors: FormErrors | null;
  /** The user typed the port (or a connection string named it): a dialect change keeps it. */
  portTyped: boolean;
}

export type FormAction =
  | { type: 'set'; field: keyof FormValues; value: FormValues[keyof FormValues] }
  | { type: 'setMode'; field: FormSecret; mode: SecretMode }
  | { type: 'dialect'; dialect: FormDialect }
  | { type: 'fill'; parsed: ParsedConnection }
  | { type: 'start'; status: 'verifying' | 'saving' }
  | { type: 'invalid'; errors: FormErrors }
  | { type: 'verified'; key: string }
  | { type: 'saved'; record: DataSource }
  | { type: 'deleted' }
  | { type: 'refused' };

export function initialFormState(record: DataSource | null): FormState {
  return {
    record,
    values: valuesOf(record),
    modes: secretModesOf(record),
    status: 'idle',
    verifiedKey: null,
    errors: null,
    portTyped: false,
  };
}

/** An edit ends a finished check or save (not one in flight) and clears the field's error. */
function touched(state: FormState, field: string): Pick<FormState, 'status' | 'errors'> {
  const { status, errors } = state;
  const busy = status === 'verifying' || status === 'saving';
  if (!errors?.fields[field]) return { status: busy ? status : 'idle', errors };
  const { [field]: _, ...fields } = errors.fields;
  return { status: busy ? status : 'idle', errors: { ...errors, fields } };
}

/** The data source form's state changes: edits, and the steps of verify and save. */
export function formReducer(state: FormState, action: FormAction): FormState {
  switch (action.type) {
    case 'set':
      return {
        ...state,
        portTyped: state.portTyped || action.field === 'port',
        ...touched(state, action.field),
        values: { ...state.values, [action.field]: action.value },
      };
    case 'dialect': {
      const { values, portTyped } = state;
      const port = portTyped ? values.port : String(DEFAULT_PORTS[action.dialect]);
      return {
        ...state,
        ...touched(state, 'port'),
        values: { ...values, dialect: action.dialect, port },
      };
    }
    case 'fill': {
      // Fields the string named; a password only if it had one, TLS only if it said.
      const { password, sslEnabled, port, ...named } = action.parsed;
      const values = {
        ...state.values,
        ...named,
        port: port ?? String(DEFAULT_PORTS[named.dialect]),
      };
      if (password !== null) values.password = password;
      if (sslEnabled !== undefined) values.sslEnabled = sslEnabled;
      const modes: SecretModes =
        password !== null && state.modes.password
          ? { ...state.modes, password: 'replace' }
          : state.modes;
      const busy = state.status === 'verifying' || state.status === 'saving';
      return {
        ...state,
        values,
        modes,
        portTyped: port !== null,
        errors: null,
        status: busy ? state.status : 'idle',
      };
    }
    case 'setMode':
      return {
        ...state,
        ...touched(state, action.field),
        modes: { ...state.modes, [action.field]: action.mode },
      };
    case 'start':
      return { ...state, status: action.status, errors: null };
    case 'invalid':
      return { ...state, status: 'invalid', errors: action.errors };
    case 'verified':
      return { ...state, status: 'verified', verifiedKey: action.key };
    case 'saved':
      return {
        ...state,
        ...initialFormState(action.record),
        status: 'saved',
        errors: state.errors,
      };
    case 'deleted':
      return { ...state, status: 'deleted' };
    case 'refused':
      return { ...state, status: 'idle', errors: null };
  }
}

/** What follows from the state: the bodies to send, and whether Save may run. */
export function deriveForm(state: FormState, requireVerify: boolean) {
  const { record, values, modes, status } = state;
  const verifyBody = toVerifyBody(values, modes);
  const verifyKey = JSON.stringify(verifyBody);
  const isVerified = state.verifiedKey === verifyKey;
  const updateBody = record ? toUpdateBody(values, modes, record) : null;
  const needsVerify = requireVerify && (updateBody ? changesConnection(updateBody) : true);
  return {
    /** Stored secrets this save would drop: the target changed (form-values droppedSecrets). */
    dropped: record && updateBody ? droppedSecrets(updateBody, modes, record) : [],
    verifyBody,
    verifyKey,
    isVerified,
    updateBody,
    needsVerify,
    canSave: !needsVerify || isVerified,
    busy: status === 'verifying' || status === 'saving',
    /** The `data-state`: a passed check no longer counts once the values changed. */
    shownStatus: status === 'verified' && !isVerified ? 'idle' : status,
  };
}
