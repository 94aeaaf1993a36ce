import { isBridgeError } from '@bridgekit/client';
import type { DataSource } from '@bridgekit/contract';
import { type FormEvent, useEffect, useReducer, useRef } from 'react';
import { errorText, fieldTexts, isAdminRequired } from '../internal/error-text';
import type { FormContextValue } from '../provider/bridge-provider';
import { refuseAdmin } from '../provider/session-store';
import type { FormDialect, ParsedConnection } from './connection-string';
import { deriveForm, type FormErrors, formReducer, initialFormState } from './form-reducer';
import {
  checkValues,
  type FieldErrors,
  type FormSecret,
  type FormValues,
  formFieldErrors,
  type SecretMode,
  toCreateBody,
} from './form-values';

interface FormStateOptions {
  context: FormContextValue;
  orgId: string;
  initialRecord: DataSource | null;
  requireVerify: boolean;
  onSaved: ((record: DataSource) => void) | undefined;
}

/** What the form's parts read and call: the state, what follows from it, and the actions. */
export type FormApi = ReturnType<typeof useFormState>;

/** Values, verification, errors and the verify/save actions of the data source form. */
export function useFormState(options: FormStateOptions) {
  const { context, orgId, initialRecord, requireVerify, onSaved } = options;
  const { client, messages } = context;
  const summaryRef = useRef<HTMLDivElement>(null);
  const [form, dispatch] = useReducer(formReducer, initialRecord, initialFormState);
  const { record, values, modes } = form;
  const derived = deriveForm(form, requireVerify);
  const { verifyBody, verifyKey, updateBody, busy, canSave } = derived;

  // After a failed check or request, move focus to the summary (its links lead to the fields).
  const focusSummary = useRef(false);
  useEffect(() => {
    if (!focusSummary.current) return;
    focusSummary.current = false;
    summaryRef.current?.focus();
  });

  const invalid = (errors: FormErrors) => {
    dispatch({ type: 'invalid', errors });
    focusSummary.current = true;
  };
  const showLocal = (fields: FieldErrors) => {
    if (Object.keys(fields).length === 0) return false;
    invalid({ detail: messages.checkFields, fields });
    return true;
  };
  const fail = (error: unknown) => {
    // A MEMBER's write: the form turns read-only and says why, instead of showing the 403.
    if (isAdminRequired(error)) {
      dispatch({ type: 'refused' });
      refuseAdmin(client, orgId);
      return;
    }
    invalid({
      detail: errorText(error, messages, messages.somethingWentWrong),
      fields: isBridgeError(error) ? formFieldErrors(fieldTexts(error, messages), values) : {},
    });
  };

  const testConnection = async () => {
    if (busy || showLocal(checkValues(values, modes, messages, false))) return;
    dispatch({ type: 'start', status: 'verifying' });
    try {
      await client.verifyDataSource({ params: { orgId }, body: verifyBody });
      dispatch({ type: 'verified', key: verifyKey });
    } catch (error) {
      fail(error);
    }
  };

  const save = async (event: FormEvent) => {
    event.preventDefault();
    if (busy || !canSave || showLocal(checkValues(values, modes, messages, true))) return;
    dispatch({ type: 'start', status: 'saving' });
    try {
      const { data } =
        record && updateBody
          ? await client.updateDataSource({ params: { orgId, id: record.id }, body: updateBody })
          : await client.createDataSource({ params: { orgId }, body: toCreateBody(values, modes) });
      dispatch({ type: 'saved', record: data });
      onSaved?.(data);
    } catch (error) {
      fail(error);
    }
  };

  return {
    ...form,
    ...derived,
    summaryRef,
    set: <K extends keyof FormValues>(field: K, value: FormValues[K]) =>
      dispatch({ type: 'set', field, value }),
    setMode: (field: FormSecret, mode: SecretMode) => dispatch({ type: 'setMode', field, mode }),
    setDialect: (dialect: FormDialect) => dispatch({ type: 'dialect', dialect }),
    fill: (parsed: ParsedConnection) => dispatch({ type: 'fill', parsed }),
    testConnection,
    save,
    markDeleted: () => dispatch({ type: 'deleted' }),
  };
}
