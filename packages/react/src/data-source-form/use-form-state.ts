import { isBridgeError } from '@bridgekit/client';
import type { DataSource } from '@bridgekit/contract';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { errorText } from '../internal/error-text';
import type { BridgeContextValue } from '../provider/bridge-provider';
import {
  changesConnection,
  checkValues,
  type FieldErrors,
  type FormSecret,
  type FormValues,
  fieldOf,
  type SecretMode,
  secretModesOf,
  toCreateBody,
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

interface FormStateOptions {
  context: BridgeContextValue;
  orgId: string;
  initialRecord: DataSource | null;
  requireVerify: boolean;
  onSaved: ((record: DataSource) => void) | undefined;
}

/** Values, verification, errors and the verify/save actions of the data source form. */
export function useFormState({
  context,
  orgId,
  initialRecord,
  requireVerify,
  onSaved,
}: FormStateOptions) {
  const { client, messages } = context;
  const summaryRef = useRef<HTMLDivElement>(null);

  const [record, setRecord] = useState(initialRecord);
  const [values, setValues] = useState(() => valuesOf(initialRecord));
  const [modes, setModes] = useState(() => secretModesOf(initialRecord));
  const [status, setStatus] = useState<FormStatus>('idle');
  const [verifiedKey, setVerifiedKey] = useState<string | null>(null);
  const [errors, setErrors] = useState<{ detail: string; fields: FieldErrors } | null>(null);

  // After a failed check or request, move focus to the summary (its links lead to the fields).
  const focusSummary = useRef(false);
  useEffect(() => {
    if (!focusSummary.current) return;
    focusSummary.current = false;
    summaryRef.current?.focus();
  });

  const verifyBody = toVerifyBody(values, modes);
  const verifyKey = JSON.stringify(verifyBody);
  const isVerified = verifiedKey === verifyKey;
  const updateBody = record ? toUpdateBody(values, modes, record) : null;
  const needsVerify = requireVerify && (updateBody ? changesConnection(updateBody) : true);
  const canSave = !needsVerify || isVerified;
  const busy = status === 'verifying' || status === 'saving';
  const state = status === 'verified' && !isVerified ? 'idle' : status;

  const touched = (field: string) => {
    setStatus((s) => (s === 'verifying' || s === 'saving' ? s : 'idle'));
    setErrors((e) => {
      if (!e?.fields[field]) return e;
      const { [field]: _, ...fields } = e.fields;
      return { ...e, fields };
    });
  };
  const set = <K extends keyof FormValues>(field: K, value: FormValues[K]) => {
    setValues((v) => ({ ...v, [field]: value }));
    touched(field);
  };
  const setMode = (field: FormSecret, mode: SecretMode) => {
    setModes((m) => ({ ...m, [field]: mode }));
    touched(field);
  };

  const showLocal = (fields: FieldErrors) => {
    if (Object.keys(fields).length === 0) return false;
    setErrors({ detail: messages.checkFields, fields });
    setStatus('invalid');
    focusSummary.current = true;
    return true;
  };

  const fail = (error: unknown) => {
    const fields: FieldErrors = {};
    if (isBridgeError(error)) {
      for (const [name, message] of Object.entries(error.fieldErrors)) {
        let field = fieldOf(name);
        if (field === 'sshPassword' && values.sshAuth === 'privateKey') field = 'sshPrivateKey';
        fields[field] = message;
      }
    }
    setErrors({ detail: errorText(error, messages, messages.somethingWentWrong), fields });
    setStatus('invalid');
    focusSummary.current = true;
  };

  const testConnection = async () => {
    if (busy || showLocal(checkValues(values, modes, messages, false))) return;
    setStatus('verifying');
    setErrors(null);
    try {
      await client.verifyDataSource({ params: { orgId }, body: verifyBody });
      setVerifiedKey(verifyKey);
      setStatus('verified');
    } catch (error) {
      fail(error);
    }
  };

  const save = async (event: FormEvent) => {
    event.preventDefault();
    if (busy || !canSave || showLocal(checkValues(values, modes, messages, true))) return;
    setStatus('saving');
    setErrors(null);
    try {
      const { data } =
        record && updateBody
          ? await client.updateDataSource({ params: { orgId, id: record.id }, body: updateBody })
          : await client.createDataSource({ params: { orgId }, body: toCreateBody(values, modes) });
      setRecord(data);
      setValues(valuesOf(data));
      setModes(secretModesOf(data));
      setVerifiedKey(null);
      setStatus('saved');
      onSaved?.(data);
    } catch (error) {
      fail(error);
    }
  };

  return {
    record,
    values,
    modes,
    errors,
    status,
    state,
    busy,
    isVerified,
    needsVerify,
    canSave,
    summaryRef,
    set,
    setMode,
    testConnection,
    save,
    markDeleted: () => setStatus('deleted'),
  };
}
