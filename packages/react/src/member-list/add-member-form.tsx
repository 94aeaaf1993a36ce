import { isBridgeError } from '@bridgekit/client';
import type { Member, Role } from '@bridgekit/contract';
import { type FormEvent, useId, useState } from 'react';
import { TextField } from '../data-source-form/fields';
import { errorText, fieldTexts, isAdminRequired } from '../internal/error-text';
import type { BridgeContextValue } from '../provider/bridge-provider';
import type { CoreMessages } from '../provider/messages';
import { refuseAdmin } from '../provider/session-store';
import type { MemberListMessages } from './member-list-messages';

interface AddMemberFormProps {
  context: BridgeContextValue & { messages: CoreMessages & MemberListMessages };
  orgId: string;
  onAdded: (member: Member, said: string) => void;
}

/** Email and role, then `POST …/members`; the bridge's field errors show on the fields. */
export function AddMemberForm({ context, orgId, onAdded }: AddMemberFormProps) {
  const { client, messages } = context;
  const id = useId();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('MEMBER');
  const [busy, setBusy] = useState(false);
  const [fields, setFields] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>(null);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    const value = email.trim();
    const focusEmail = () => document.getElementById(`${id}-email`)?.focus();
    setError(null);
    if (!value) {
      setFields({ email: messages.emailRequired });
      focusEmail();
      return;
    }
    setFields({});
    setBusy(true);
    try {
      const { data } = await client.addMember({ params: { orgId }, body: { email: value, role } });
      setEmail('');
      onAdded(data, messages.memberAdded(data.user.email));
    } catch (caught) {
      if (isAdminRequired(caught)) refuseAdmin(client, orgId);
      else if (isBridgeError(caught) && Object.keys(caught.fieldErrors).length > 0) {
        setFields(fieldTexts(caught, messages));
        focusEmail();
      } else setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      className="bk-member-list__add"
      aria-labelledby={`${id}-title`}
      noValidate
      onSubmit={submit}
    >
      <h3 id={`${id}-title`} className="bk-member-list__add-title">
        {messages.addMemberTitle}
      </h3>
      <div className="bk-member-list__add-fields">
        <TextField
          value={email}
          onChange={(event) => setEmail(event.currentTarget.value)}
          id={`${id}-email`}
          label={messages.addMemberEmail}
          type="email"
          autoComplete="off"
          error={fields.email}
        />
        <div className="bk-field">
          <label className="bk-field__label" htmlFor={`${id}-role`}>
            {messages.addMemberRole}
          </label>
          <select
            id={`${id}-role`}
            className="bk-input"
            value={role}
            onChange={(event) => setRole(event.currentTarget.value as Role)}
          >
            <option value="MEMBER">{messages.roleMember}</option>
            <option value="ADMIN">{messages.roleAdmin}</option>
          </select>
        </div>
        <button type="submit" className="bk-button bk-button--primary" aria-disabled={busy}>
          {busy ? messages.addingMember : messages.addMember}
        </button>
      </div>
      {error !== null && (
        <p className="bk-alert" role="alert">
          {errorText(error, messages, messages.addMemberFailed)}
        </p>
      )}
    </form>
  );
}
