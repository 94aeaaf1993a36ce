import { isBridgeError } from '@bridgekit/client';
import type { Organization, UpdateOrganizationBody } from '@bridgekit/contract';
import { type FormEvent, useId, useState } from 'react';
import { CheckboxField, describedBy, FieldMessages, TextField } from '../data-source-form/fields';
import { errorText, fieldTexts, isAdminRequired } from '../internal/error-text';
import { refuseAdmin } from '../provider/session-store';
import { type OriginEntry, originErrors, originsToSend } from './origins';
import { OriginsEditor } from './origins-editor';
import type { SettingsContext } from './settings-context';

interface GeneralFormProps {
  context: SettingsContext;
  organization: Organization;
  readOnly: boolean;
  /** Slug, full embed and origins shown but not editable: only an API key may change them. */
  hostLocked: boolean;
  onSaved: (organization: Organization) => void;
}

const toEntries = (origins: readonly string[]): OriginEntry[] =>
  origins.map((value, i) => ({ key: i + 1, value }));

/** Only what changed (and may be sent): the bridge leaves omitted fields as they are. */
function changes(org: Organization, form: FormState, hostLocked: boolean): UpdateOrganizationBody {
  const body: UpdateOrganizationBody = {};
  if (form.name.trim() !== org.name) body.name = form.name.trim();
  const context = form.aiContext === '' ? null : form.aiContext;
  if (context !== org.customAiContext) body.customAiContext = context;
  if (hostLocked) return body;
  if (form.slug !== org.slug) body.slug = form.slug;
  if (form.fullEmbed !== org.fullEmbedEnabled) body.fullEmbedEnabled = form.fullEmbed;
  const origins = originsToSend(form.origins);
  if (origins.join('\n') !== org.embedAllowedOrigins.join('\n')) {
    body.embedAllowedOrigins = origins;
  }
  return body;
}

interface FormState {
  name: string;
  slug: string;
  aiContext: string;
  fullEmbed: boolean;
  origins: OriginEntry[];
}

const initial = (org: Organization): FormState => ({
  name: org.name,
  slug: org.slug,
  aiContext: org.customAiContext ?? '',
  fullEmbed: org.fullEmbedEnabled,
  origins: toEntries(org.embedAllowedOrigins),
});

/** The bridge's `embedAllowedOrigins.<i>` errors, on the entries that were sent as `<i>`. */
function serverOriginErrors(fields: Record<string, string>, entries: readonly OriginEntry[]) {
  const sent = entries.filter((entry) => entry.value.trim() !== '');
  const out: Record<number, string> = {};
  for (const [field, text] of Object.entries(fields)) {
    const match = /^embedAllowedOrigins\.(\d+)$/.exec(field);
    const entry = match ? sent[Number(match[1])] : undefined;
    if (entry) out[entry.key] = text;
  }
  return out;
}

interface TextAreaFieldProps {
  id: string;
  label: string;
  hint: string;
  value: string;
  error: string | undefined;
  onChange: (value: string) => void;
}

/** A labelled textarea with its hint and error. */
function TextAreaField({ id, label, hint, value, error, onChange }: TextAreaFieldProps) {
  return (
    <div className="bk-field" data-invalid={error ? '' : undefined}>
      <label className="bk-field__label" htmlFor={id}>
        {label}
      </label>
      <textarea
        id={id}
        className="bk-input bk-textarea"
        rows={4}
        value={value}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, error, hint)}
        onChange={(event) => onChange(event.currentTarget.value)}
      />
      <FieldMessages id={id} error={error} hint={hint} />
    </div>
  );
}

/** The form's values and errors, and Save: local checks first, then only what changed. */
function useGeneralForm(props: GeneralFormProps) {
  const { context, organization, readOnly, hostLocked, onSaved } = props;
  const { client, messages } = context;
  const [form, setForm] = useState(() => initial(organization));
  const [fields, setFields] = useState<Record<string, string>>({});
  const [origins, setOrigins] = useState<Record<number, string>>({});
  const [status, setStatus] = useState<'idle' | 'saving' | 'saved' | 'invalid'>('idle');
  const [error, setError] = useState<unknown>(null);
  const set = (patch: Partial<FormState>) => {
    setForm((f) => ({ ...f, ...patch }));
    if (status === 'saved') setStatus('idle');
  };

  const save = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (readOnly || status === 'saving') return;
    setError(null);
    const local: Record<string, string> = form.name.trim() ? {} : { name: messages.orgRequired };
    const localOrigins = originErrors(form.origins, messages);
    setFields(local);
    setOrigins(localOrigins);
    if (Object.keys(local).length + Object.keys(localOrigins).length > 0) {
      setStatus('invalid');
      return;
    }
    setStatus('saving');
    try {
      const { data } = await client.updateOrganization({
        params: { orgId: organization.id },
        body: changes(organization, form, hostLocked),
      });
      setForm(initial(data));
      setStatus('saved');
      onSaved(data);
    } catch (caught) {
      setStatus('idle');
      if (isAdminRequired(caught)) refuseAdmin(client, organization.id);
      else if (isBridgeError(caught) && Object.keys(caught.fieldErrors).length > 0) {
        const texts = fieldTexts(caught, messages);
        setFields(texts);
        setOrigins(serverOriginErrors(texts, form.origins));
        setStatus('invalid');
      } else setError(caught);
    }
  };

  return { form, fields, origins, status, error, set, save, setOrigins };
}

/** Name, slug, AI context, full embed and its origins; Save sends what changed. */
export function GeneralForm(props: GeneralFormProps) {
  const { context, readOnly, hostLocked } = props;
  const { messages } = context;
  const id = useId();
  const { form, fields, origins, status, error, set, save, setOrigins } = useGeneralForm(props);
  return (
    <form className="bk-organization-settings__form" noValidate onSubmit={save}>
      <fieldset className="bk-section" disabled={readOnly || undefined}>
        <legend className="bk-section__title">{messages.orgGeneral}</legend>
        <TextField
          id={`${id}-name`}
          label={messages.orgName}
          value={form.name}
          error={fields.name}
          autoComplete="organization"
          onChange={(event) => set({ name: event.currentTarget.value })}
        />
        <TextField
          id={`${id}-slug`}
          label={messages.orgSlug}
          hint={messages.orgSlugHint}
          value={form.slug}
          error={fields.slug}
          readOnly={hostLocked || undefined}
          spellCheck={false}
          onChange={(event) => set({ slug: event.currentTarget.value })}
        />
        <TextAreaField
          id={`${id}-ai`}
          label={messages.orgAiContext}
          hint={messages.orgAiContextHint}
          value={form.aiContext}
          error={fields.customAiContext}
          onChange={(aiContext) => set({ aiContext })}
        />
        <CheckboxField
          id={`${id}-embed`}
          label={messages.orgFullEmbed}
          checked={form.fullEmbed}
          error={fields.fullEmbedEnabled}
          disabled={hostLocked || undefined}
          onChange={(event) => set({ fullEmbed: event.currentTarget.checked })}
        />
      </fieldset>
      <OriginsEditor
        entries={form.origins}
        errors={origins}
        messages={messages}
        disabled={readOnly || hostLocked}
        onChange={(entries) => set({ origins: entries })}
        onCheck={() => setOrigins(originErrors(form.origins, messages))}
      />
      {!readOnly && (
        <div className="bk-organization-settings__actions">
          <button
            type="submit"
            className="bk-button bk-button--primary"
            aria-disabled={status === 'saving' || undefined}
          >
            {status === 'saving' ? messages.orgSaving : messages.orgSave}
          </button>
          <p className="bk-organization-settings__status" role="status">
            {status === 'saved' ? messages.orgSaved : ''}
          </p>
        </div>
      )}
      {status === 'invalid' && (
        <p className="bk-alert" role="alert">
          {messages.orgCheckFields}
        </p>
      )}
      {error !== null && (
        <p className="bk-alert" role="alert">
          {errorText(error, messages, messages.orgSaveFailed)}
        </p>
      )}
    </form>
  );
}
