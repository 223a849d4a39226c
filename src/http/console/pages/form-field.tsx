/** A form's values and the problems found with them, by field name. */
export interface FormState {
  values: Record<string, string>;
  errors: Record<string, string>;
}

/** One labelled input of a console form, its hint and its error tied to it for screen readers. */
export function Field({
  name,
  label,
  form,
  type = 'text',
  hint,
  idPrefix = 'cb',
  inputMode,
  required,
  spellcheck,
}: {
  name: string;
  label: string;
  form: FormState;
  type?: 'text' | 'password' | 'datetime-local';
  hint?: string;
  /** Keeps ids apart between the pages' forms. */
  idPrefix?: string;
  inputMode?: 'numeric';
  required?: boolean;
  /** False for what is not prose (references, keys): no spelling marks under it. */
  spellcheck?: boolean;
}) {
  const id = `${idPrefix}-${name}`;
  const error = form.errors[name];
  const described = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].join(' ').trim();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {hint ? (
        <span class="hint" id={`${id}-hint`}>
          {hint}
        </span>
      ) : null}
      <Input
        type={type}
        id={id}
        name={name}
        inputmode={inputMode}
        required={required}
        spellcheck={spellcheck}
        value={type === 'password' ? '' : (form.values[name] ?? '')}
        aria-describedby={described || undefined}
        aria-invalid={error ? 'true' : undefined}
        autocomplete="off"
      />
      {error ? (
        <span class="error" id={`${id}-error`}>
          {error}
        </span>
      ) : null}
    </div>
  );
}

/** What a field's input carries: no role, no list, so each type's attributes allow all of it. */
interface InputProps {
  type: 'text' | 'password' | 'datetime-local';
  id: string;
  name: string;
  inputmode: 'numeric' | undefined;
  required: boolean | undefined;
  spellcheck: boolean | undefined;
  value: string;
  'aria-describedby': string | undefined;
  'aria-invalid': 'true' | undefined;
  autocomplete: 'off';
}

/** An input of one of the types a field may have: each its own element, as its attributes differ. */
function Input({ type, ...attributes }: InputProps) {
  if (type === 'password') return <input type="password" {...attributes} />;
  if (type === 'datetime-local') return <input type="datetime-local" {...attributes} />;
  return <input type="text" {...attributes} />;
}
