import { useState } from 'react';
import type { Schemas } from '../api/client';
import { ConfirmDialog } from '../components/Dialog';
import { ErrorBox } from '../components/ErrorBox';
import { useLoad } from '../components/useLoad';
import { api } from '../state/session';
import { FormError, useSave } from '../components/useSave';

type Label = Schemas['Label'];
type Meaning = Label['meaning'];

/** What a label can tell the engine, in the words the select shows. */
const MEANINGS: Array<{ value: Meaning; text: string }> = [
  { value: null, text: 'Nothing, only a tag' },
  { value: 'dispute', text: 'A dispute' },
  { value: 'promise', text: 'A promise to pay' },
];

function MeaningSelect({ value, onChange, label }: { value: Meaning; onChange: (m: Meaning) => void; label?: string }) {
  return (
    <select aria-label={label} value={value ?? ''} onChange={(e) => onChange((e.target.value || null) as Meaning)}>
      {MEANINGS.map((m) => (
        <option key={m.text} value={m.value ?? ''}>
          {m.text}
        </option>
      ))}
    </select>
  );
}

function LabelRow({ companyId, label, onChanged }: { companyId: string; label: Label; onChanged: () => void }) {
  const [name, setName] = useState(label.name);
  const [color, setColor] = useState(label.color);
  const [meaning, setMeaning] = useState<Meaning>(label.meaning);
  const [confirm, setConfirm] = useState(false);
  const save = useSave();
  const path = { company_id: companyId, label_id: label.id };
  return (
    <tr>
      <td>
        <input aria-label={`Name of label ${label.name}`} value={name} maxLength={50} onChange={(e) => setName(e.target.value)} />
        <FormError error={save.error} />
      </td>
      <td>
        <input type="color" aria-label={`Colour of label ${label.name}`} value={color} onChange={(e) => setColor(e.target.value)} />
      </td>
      <td>
        <MeaningSelect label={`What label ${label.name} means`} value={meaning} onChange={setMeaning} />
      </td>
      <td className="num">
        <button
          type="button"
          className="btn btn-small"
          disabled={save.busy || (name === label.name && color === label.color && meaning === label.meaning)}
          onClick={async () => (await save.run(() => api.patch('/api/companies/{company_id}/labels/{label_id}', { path, body: { name: name.trim(), color, meaning } }), `Label ${name.trim()} saved.`)) && onChanged()}
        >
          Save
        </button>{' '}
        <button type="button" className="btn btn-small btn-danger" disabled={save.busy} onClick={() => setConfirm(true)}>
          Delete
        </button>
        {confirm && (
          <ConfirmDialog
            title={`Delete the label ${label.name}?`}
            confirmLabel="Delete label"
            busy={save.busy}
            onCancel={() => setConfirm(false)}
            onConfirm={async () => {
              setConfirm(false);
              if (await save.run(() => api.delete('/api/companies/{company_id}/labels/{label_id}', { path }), `Label ${label.name} deleted.`)) onChanged();
            }}
          >
            It is removed from every invoice that has it.
          </ConfirmDialog>
        )}
      </td>
    </tr>
  );
}

/**
 * Labels of the company: name, colour and what the label means to the engine (a dispute, a promise
 * to pay, or nothing), created, changed and deleted.
 */
export function Labels({ companyId }: { companyId: string }) {
  const [version, setVersion] = useState(0);
  const labels = useLoad((signal) => api.get('/api/companies/{company_id}/labels', { path: { company_id: companyId }, signal }), [companyId, version]);
  const [name, setName] = useState('');
  const [color, setColor] = useState('#2f6fde');
  const [meaning, setMeaning] = useState<Meaning>(null);
  const save = useSave();
  const reload = () => setVersion((v) => v + 1);
  return (
    <section className="card" aria-labelledby="labels-title">
      <h2 id="labels-title">Labels</h2>
      <p className="muted">
        A label that means a dispute or a promise to pay counts as one everywhere: no reminders are proposed for the invoices it is on, and their chase pauses while it is on them.
      </p>
      {labels.error !== null && <ErrorBox what="the labels" error={labels.error} onRetry={labels.reload} />}
      {labels.data && (
        <table className="data-table" data-testid="labels-table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Colour</th>
              <th scope="col">Means</th>
              <th scope="col" className="num">
                <span className="sr-only">Changes</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {labels.data.data.map((l) => (
              <LabelRow key={`${l.id}-${l.updated_at}`} companyId={companyId} label={l} onChanged={reload} />
            ))}
          </tbody>
        </table>
      )}
      <form
        className="toolbar-row"
        onSubmit={async (e) => {
          e.preventDefault();
          if (await save.run(() => api.post('/api/companies/{company_id}/labels', { path: { company_id: companyId }, body: { name: name.trim(), color, meaning } }), `Label ${name.trim()} created.`)) {
            setName('');
            setMeaning(null);
            reload();
          }
        }}
      >
        <label>
          New label
          <input value={name} required maxLength={50} onChange={(e) => setName(e.target.value)} />
        </label>
        <label>
          Colour
          <input type="color" value={color} onChange={(e) => setColor(e.target.value)} />
        </label>
        <label>
          Means
          <MeaningSelect value={meaning} onChange={setMeaning} />
        </label>
        <button type="submit" className="btn btn-primary" disabled={save.busy || !name.trim()}>
          Add label
        </button>
      </form>
      <FormError error={save.error} />
    </section>
  );
}
