import { describe, expect, it } from 'vitest';
import { warehouse } from '../../../../test/support/fixtures';
import { deriveForm, type FormState, formReducer, initialFormState } from './form-reducer';

const edit = (state: FormState, field: 'host' | 'displayName', value: string) =>
  formReducer(state, { type: 'set', field, value });

describe('formReducer', () => {
  it('starts from the record: its values, stored secrets as kept, nothing verified', () => {
    const state = initialFormState(warehouse);
    expect(state.values.host).toBe('db.acme.example');
    expect(state.values.password).toBe('');
    expect(state.modes).toEqual({ password: 'stored' });
    expect(state).toMatchObject({ status: 'idle', verifiedKey: null, errors: null });
  });

  it('an edit clears that field’s error only, and ends a finished check', () => {
    const invalid = formReducer(initialFormState(null), {
      type: 'invalid',
      errors: { detail: 'Check the fields', fields: { host: 'Required', username: 'Required' } },
    });
    const next = edit(invalid, 'host', 'db');
    expect(next.values.host).toBe('db');
    expect(next.status).toBe('idle');
    expect(next.errors).toEqual({ detail: 'Check the fields', fields: { username: 'Required' } });
  });

  it('an edit during a request keeps its status', () => {
    const verifying = formReducer(initialFormState(null), { type: 'start', status: 'verifying' });
    expect(edit(verifying, 'host', 'db').status).toBe('verifying');
    const saving = formReducer(initialFormState(null), { type: 'start', status: 'saving' });
    expect(
      formReducer(saving, { type: 'setMode', field: 'password', mode: 'remove' }),
    ).toMatchObject({ status: 'saving', modes: { password: 'remove' } });
  });

  it('a passed check counts for the values it checked only', () => {
    const filled = edit(initialFormState(null), 'host', 'db');
    const { verifyKey } = deriveForm(filled, true);
    const verified = formReducer(filled, { type: 'verified', key: verifyKey });
    expect(deriveForm(verified, true)).toMatchObject({
      isVerified: true,
      canSave: true,
      shownStatus: 'verified',
    });
    const changed = edit(verified, 'host', 'db2');
    expect(deriveForm(changed, true)).toMatchObject({
      isVerified: false,
      canSave: false,
      shownStatus: 'idle',
    });
  });

  it('a rename of a saved record needs no check; a new record does unless told otherwise', () => {
    const renamed = edit(initialFormState(warehouse), 'displayName', 'Warehouse');
    expect(deriveForm(renamed, true)).toMatchObject({
      needsVerify: false,
      canSave: true,
      updateBody: { displayName: 'Warehouse' },
    });
    expect(deriveForm(initialFormState(null), true).needsVerify).toBe(true);
    expect(deriveForm(initialFormState(null), false).canSave).toBe(true);
  });

  it('a save starts over from the record the server returned', () => {
    const saving = formReducer(edit(initialFormState(null), 'host', 'db'), {
      type: 'start',
      status: 'saving',
    });
    const saved = formReducer(saving, { type: 'saved', record: warehouse });
    expect(saved).toEqual({ ...initialFormState(warehouse), status: 'saved' });
  });
});
