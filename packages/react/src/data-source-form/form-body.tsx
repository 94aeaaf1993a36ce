import type { DataSource } from '@bridgekit/contract';
import { type Ref, useId } from 'react';
import type { FormContextValue } from '../provider/bridge-provider';
import { boundFields, shownLabel } from './bound-fields';
import { ErrorSummary } from './error-summary';
import { FormActions } from './form-actions';
import { initialFormState } from './form-reducer';
import { ConnectionSection, SshSection, SslSection } from './form-sections';
import { FormCannotCreate } from './form-states';
import type { FormValues } from './form-values';
import { useFormState } from './use-form-state';

interface FormBodyProps {
  root: { className: string; ref: Ref<HTMLFormElement> } & Record<string, unknown>;
  context: FormContextValue;
  unstyled: boolean | undefined;
  orgId: string;
  initialRecord: DataSource | null;
  requireVerify: boolean;
  /** Show the record without Test, Save and Delete (a MEMBER), and say why. */
  readOnly: boolean;
  /** Read-only because the role changed while the form was open: the values stay. */
  roleChanged: boolean;
  /** Why the form is read-only. */
  notice: string;
  /** False for a client that cannot test connections: no Test connection, and a note why. */
  canVerify: boolean;
  onSaved: ((record: DataSource) => void) | undefined;
  onDeleted: ((record: DataSource) => void) | undefined;
}

const isPristine = (values: FormValues) =>
  JSON.stringify(values) === JSON.stringify(initialFormState(null).values);

/** The form once the record (if any) is known; keyed by record id. */
export function FormBody(props: FormBodyProps) {
  const { root, context, unstyled, orgId, initialRecord, requireVerify, readOnly } = props;
  const { roleChanged, notice, canVerify, onSaved, onDeleted } = props;
  const { messages } = context;
  const baseId = useId();
  const idOf = (field: string) => `${baseId}-${field}`;
  const form = useFormState({ context, orgId, initialRecord, requireVerify, onSaved });
  const { errors, status, shownStatus, busy } = form;

  if (status === 'deleted') {
    return (
      <form {...root} data-state="deleted">
        <p className="bk-data-source-form__status" role="status">
          {messages.deleted}
        </p>
      </form>
    );
  }

  const fields = boundFields(form, messages, idOf, readOnly);
  // A new form nobody typed in has nothing to keep: say only that admins add data sources.
  if (readOnly && roleChanged && !initialRecord && isPristine(form.values)) {
    return <FormCannotCreate root={root} text={messages.readOnlyCreate} />;
  }
  if (readOnly) {
    return (
      <form {...root} data-state="read-only" onSubmit={(event) => event.preventDefault()}>
        <p className="bk-notice" role="status">
          {notice}
        </p>
        <ConnectionSection fields={fields} messages={messages} form={form} idOf={idOf} readOnly />
        <SslSection fields={fields} messages={messages} />
        <SshSection fields={fields} messages={messages} form={form} idOf={idOf} readOnly />
      </form>
    );
  }
  return (
    <form
      {...root}
      data-state={shownStatus}
      aria-busy={busy || undefined}
      onSubmit={form.save}
      noValidate
    >
      {errors && (
        <ErrorSummary
          ref={form.summaryRef}
          detail={errors.detail}
          fields={errors.fields}
          idOf={idOf}
          labelOf={(field) => shownLabel(messages, field)}
        />
      )}
      <ConnectionSection fields={fields} messages={messages} form={form} idOf={idOf} />
      <SslSection fields={fields} messages={messages} />
      <SshSection fields={fields} messages={messages} form={form} idOf={idOf} />
      <FormActions
        form={form}
        context={context}
        unstyled={unstyled}
        orgId={orgId}
        idOf={idOf}
        canVerify={canVerify}
        onDeleted={onDeleted}
      />
    </form>
  );
}
