import { useState } from 'react';
import type { Schemas } from '../api/client';
import { api } from '../state/session';
import { FormError, useSave } from '../components/useSave';

type Customer = Schemas['CustomerDetail'];
type ContactRow = Schemas['CustomerContactInput'] & { key: string };
type LocationRow = Schemas['CustomerLocationInput'] & { key: string };

let nextKey = 0;
const newKey = () => `new-${nextKey++}`;

/**
 * Contacts and locations edited as whole lists (the API replaces each list; kept rows keep their
 * ids, so invoices keep pointing at their location). At most one billing contact: picking one
 * clears the others.
 */
export function ContactsEditor({ companyId, customer, onSaved }: { companyId: string; customer: Customer; onSaved: () => void }) {
  // Only the input's fields: the API refuses fields it does not take (a bounce is not editable).
  const [contacts, setContacts] = useState<ContactRow[]>(customer.contacts.map(({ id, name, email, phone, title, is_billing }) => ({ id, name, email, phone, title, is_billing, key: id })));
  const [locations, setLocations] = useState<LocationRow[]>(customer.locations.map((l) => ({ ...l, key: l.id })));
  const save = useSave();
  const setContact = (key: string, patch: Partial<ContactRow>) => setContacts((list) => list.map((c) => (c.key === key ? { ...c, ...patch } : patch.is_billing ? { ...c, is_billing: false } : c)));
  const setLocation = (key: string, patch: Partial<LocationRow>) => setLocations((list) => list.map((l) => (l.key === key ? { ...l, ...patch } : l)));
  const blank = (v: string | null | undefined) => (v?.trim() ? v.trim() : null);

  return (
    <form
      className="card stack"
      aria-labelledby="contacts-editor-title"
      onSubmit={async (e) => {
        e.preventDefault();
        const body = {
          contacts: contacts.map(({ key: _key, ...c }) => ({ ...c, name: c.name?.trim() || undefined, email: blank(c.email), phone: blank(c.phone), title: blank(c.title) })),
          locations: locations.map(({ key: _key, ...l }) => ({
            ...l,
            name: l.name.trim(),
            address_line1: blank(l.address_line1),
            city: blank(l.city),
            region: blank(l.region),
            postal_code: blank(l.postal_code),
            country: blank(l.country),
          })),
        };
        if (await save.run(() => api.patch('/api/companies/{company_id}/customers/{customer_id}', { path: { company_id: companyId, customer_id: customer.id }, body }), 'Contacts and locations saved.')) onSaved();
      }}
    >
      <h2 id="contacts-editor-title">Contacts and locations of {customer.name}</h2>
      <fieldset className="stack">
        <legend>Contacts</legend>
        {contacts.map((c, i) => (
          <div key={c.key} className="form-cols" data-testid="contact-row">
            <label className="form-row">
              Name
              <input value={c.name ?? ''} onChange={(e) => setContact(c.key, { name: e.target.value })} />
            </label>
            <label className="form-row">
              Email
              <input type="email" value={c.email ?? ''} onChange={(e) => setContact(c.key, { email: e.target.value })} />
            </label>
            <label className="form-row">
              Phone
              <input value={c.phone ?? ''} onChange={(e) => setContact(c.key, { phone: e.target.value })} />
            </label>
            <label className="form-row">
              Title
              <input value={c.title ?? ''} onChange={(e) => setContact(c.key, { title: e.target.value })} />
            </label>
            <label className="check">
              <input type="checkbox" checked={c.is_billing ?? false} onChange={(e) => setContact(c.key, { is_billing: e.target.checked })} /> Billing contact (reminders go here)
            </label>
            <button type="button" className="btn btn-small" onClick={() => setContacts((list) => list.filter((x) => x.key !== c.key))} aria-label={`Remove contact ${c.name || i + 1}`}>
              Remove
            </button>
          </div>
        ))}
        <div>
          <button type="button" className="btn btn-small" onClick={() => setContacts((list) => [...list, { key: newKey(), name: '', is_billing: list.length === 0 }])}>
            Add a contact
          </button>
        </div>
      </fieldset>
      <fieldset className="stack">
        <legend>Locations</legend>
        {locations.map((l, i) => (
          <div key={l.key} className="form-cols" data-testid="location-row">
            <label className="form-row">
              Name
              <input value={l.name} required onChange={(e) => setLocation(l.key, { name: e.target.value })} />
            </label>
            <label className="form-row">
              Address
              <input value={l.address_line1 ?? ''} onChange={(e) => setLocation(l.key, { address_line1: e.target.value })} />
            </label>
            <label className="form-row">
              City
              <input value={l.city ?? ''} onChange={(e) => setLocation(l.key, { city: e.target.value })} />
            </label>
            <label className="form-row">
              Region
              <input value={l.region ?? ''} onChange={(e) => setLocation(l.key, { region: e.target.value })} />
            </label>
            <label className="form-row">
              Postal code
              <input value={l.postal_code ?? ''} onChange={(e) => setLocation(l.key, { postal_code: e.target.value })} />
            </label>
            <label className="form-row">
              Country
              <input value={l.country ?? ''} onChange={(e) => setLocation(l.key, { country: e.target.value })} />
            </label>
            <button type="button" className="btn btn-small" onClick={() => setLocations((list) => list.filter((x) => x.key !== l.key))} aria-label={`Remove location ${l.name || i + 1}`}>
              Remove
            </button>
          </div>
        ))}
        <div>
          <button type="button" className="btn btn-small" onClick={() => setLocations((list) => [...list, { key: newKey(), name: '' }])}>
            Add a location
          </button>
        </div>
      </fieldset>
      <FormError error={save.error} />
      <div className="form-actions">
        <button type="submit" className="btn btn-primary" disabled={save.busy}>
          Save contacts and locations
        </button>
      </div>
    </form>
  );
}
