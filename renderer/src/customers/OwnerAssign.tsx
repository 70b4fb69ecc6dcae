import { useEffect, useState } from 'react';
import type { Schemas } from '../api/client';
import { ConfirmDialog } from '../components/Dialog';
import { describeError } from '../components/ErrorBox';
import { FormError, useSave } from '../components/useSave';
import { useLoad } from '../components/useLoad';
import { useDebounced } from '../components/useDebounced';
import { formatCount } from '../desk/format';
import { api } from '../state/session';
import { toast } from '../state/toasts';

type Rule = NonNullable<Schemas['CustomerOwnerAssignment']['rule']>;

const UNASSIGNED = '';

/** Who can own a customer's AR: the active collectors and managers (and the current owner, even if not). */
function useArOwners(companyId: string, current: string | null) {
  const team = useLoad((signal) => api.get('/api/companies/{company_id}/team-members', { path: { company_id: companyId }, signal }), [companyId]);
  return (team.data?.data ?? []).filter((m) => ((m.role === 'ar' || m.role === 'manager') && m.is_active) || m.id === current);
}

function OwnerOptions({ owners }: { owners: Array<{ id: string; name: string }> }) {
  return (
    <>
      <option value={UNASSIGNED}>Unassigned</option>
      {owners.map((m) => (
        <option key={m.id} value={m.id}>
          {m.name}
        </option>
      ))}
    </>
  );
}

const customers = (n: number) => `${formatCount(n)} customer${n === 1 ? '' : 's'}`;

/** The customer page's AR owner: a choice that saves as soon as it changes. */
export function ArOwnerSelect({ companyId, customerId, current, canWrite, onSaved }: { companyId: string; customerId: string; current: string | null; canWrite: boolean; onSaved: () => void }) {
  const owners = useArOwners(companyId, current);
  const save = useSave();
  const change = (value: string) =>
    void save
      .run(
        () => api.patch('/api/companies/{company_id}/customers/{customer_id}', { path: { company_id: companyId, customer_id: customerId }, body: { ar_owner: value || null } }),
        value ? `AR owner set to ${owners.find((m) => m.id === value)?.name ?? 'the chosen member'}` : 'AR owner removed',
      )
      .then((ok) => ok && onSaved());
  return (
    <>
      <select aria-label="AR owner" data-testid="customer-ar-owner" value={current ?? UNASSIGNED} disabled={!canWrite || save.busy} onChange={(e) => change(e.target.value)}>
        <OwnerOptions owners={owners} />
      </select>
      <FormError error={save.error} />
    </>
  );
}

/** The Customers list's picked customers get one AR owner. */
export function AssignSelected({ companyId, ids, onDone }: { companyId: string; ids: string[]; onDone: () => void }) {
  const owners = useArOwners(companyId, null);
  const [owner, setOwner] = useState(UNASSIGNED);
  const [busy, setBusy] = useState(false);
  async function assign() {
    setBusy(true);
    try {
      const result = await api.post('/api/companies/{company_id}/customers/assign-ar-owner', { path: { company_id: companyId }, body: { ar_owner: owner || null, customer_ids: ids } });
      const who = owner ? owners.find((m) => m.id === owner)?.name : null;
      toast.success(`${customers(result.updated)} ${who ? `now owned by ${who}` : 'without an AR owner now'}${result.matched > result.updated ? ` (${formatCount(result.matched - result.updated)} already were)` : ''}`);
      onDone();
    } catch (err) {
      toast.error(`No owner assigned: ${describeError(err)}`);
    } finally {
      setBusy(false);
    }
  }
  return (
    <div className="bulk-bar" role="region" aria-label="Assign an AR owner to the selected customers" data-testid="assign-selected">
      <label className="inline-field">
        AR owner
        <select value={owner} onChange={(e) => setOwner(e.target.value)}>
          <OwnerOptions owners={owners} />
        </select>
      </label>
      <button type="button" className="btn btn-primary" disabled={busy} onClick={() => void assign()}>
        {owner ? `Assign ${customers(ids.length)}` : `Unassign ${customers(ids.length)}`}
      </button>
    </div>
  );
}

/** Money typed in a field: a number of at most two decimals, or nothing. */
function amountOf(text: string): number | undefined | null {
  const t = text.trim().replace(/,/g, '');
  if (!t) return undefined;
  return /^-?\d+(\.\d{1,2})?$/.test(t) ? Number(t) : null;
}

/**
 * Every customer matching a rule (a country, a range of open balance, only the unassigned) gets
 * one AR owner; the dialog counts the matches (a dry run) before anything changes.
 */
export function AssignByRule({ companyId, onDone }: { companyId: string; onDone: () => void }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" className="btn" onClick={() => setOpen(true)}>
        Assign AR owners by rule…
      </button>
      {open && (
        <RuleDialog
          companyId={companyId}
          onClose={() => setOpen(false)}
          onDone={() => {
            setOpen(false);
            onDone();
          }}
        />
      )}
    </>
  );
}

function RuleDialog({ companyId, onClose, onDone }: { companyId: string; onClose: () => void; onDone: () => void }) {
  const owners = useArOwners(companyId, null);
  const [owner, setOwner] = useState(UNASSIGNED);
  const [country, setCountry] = useState('');
  const [min, setMin] = useState('');
  const [max, setMax] = useState('');
  const [unassignedOnly, setUnassignedOnly] = useState(true);
  const [preview, setPreview] = useState<{ matched: number; updated: number } | null>(null);
  const save = useSave();
  const chosen = owner || owners[0]?.id || UNASSIGNED;
  const minAmount = amountOf(min);
  const maxAmount = amountOf(max);
  const rule: Rule = { country: country.trim() || undefined, min_open_balance: minAmount ?? undefined, max_open_balance: maxAmount ?? undefined, unassigned_only: unassignedOnly };
  const usable = minAmount !== null && maxAmount !== null && (rule.country !== undefined || rule.min_open_balance !== undefined || rule.max_open_balance !== undefined);
  const key = useDebounced(JSON.stringify([chosen, rule, usable]));

  useEffect(() => {
    setPreview(null);
    const [ownerId, r, ok] = JSON.parse(key) as [string, Rule, boolean];
    if (!ok) return;
    const abort = new AbortController();
    api
      .post('/api/companies/{company_id}/customers/assign-ar-owner', { path: { company_id: companyId }, body: { ar_owner: ownerId || null, rule: r, dry_run: true }, signal: abort.signal })
      .then(setPreview, () => undefined);
    return () => abort.abort();
  }, [companyId, key]);

  const who = owners.find((m) => m.id === chosen)?.name;
  const assign = () =>
    void save
      .run(
        () => api.post('/api/companies/{company_id}/customers/assign-ar-owner', { path: { company_id: companyId }, body: { ar_owner: chosen || null, rule } }),
        who ? `Customers matching the rule now owned by ${who}` : 'Customers matching the rule have no AR owner now',
      )
      .then((ok) => ok && onDone());
  const count = preview ? customers(preview.updated) : null;

  return (
    <ConfirmDialog
      title="Assign AR owners by rule"
      confirmLabel={count ? `Assign ${count}` : 'Assign'}
      busy={save.busy}
      disabled={!usable || !preview || preview.updated === 0}
      focusConfirm={false}
      onConfirm={assign}
      onCancel={onClose}
    >
      <div className="form-grid" data-testid="assign-rule">
        <label>
          AR owner
          <select value={chosen} onChange={(e) => setOwner(e.target.value)} autoFocus>
            <OwnerOptions owners={owners} />
          </select>
        </label>
        <label>
          Country (of any location)
          <input value={country} onChange={(e) => setCountry(e.target.value)} placeholder="e.g. Canada" />
        </label>
        <label>
          Open balance at least
          <input inputMode="decimal" value={min} onChange={(e) => setMin(e.target.value)} aria-invalid={minAmount === null} />
        </label>
        <label>
          Open balance at most
          <input inputMode="decimal" value={max} onChange={(e) => setMax(e.target.value)} aria-invalid={maxAmount === null} />
        </label>
        <label className="check wide">
          <input type="checkbox" checked={unassignedOnly} onChange={(e) => setUnassignedOnly(e.target.checked)} />
          Only customers without an AR owner
        </label>
      </div>
      <p role="status" data-testid="assign-rule-preview">
        {minAmount === null || maxAmount === null
          ? 'Type amounts as numbers, e.g. 5000 or 1250.50.'
          : !usable
            ? 'Give a country or a balance range.'
            : preview
              ? preview.matched === 0
                ? 'No customer matches.'
                : `${customers(preview.matched)} match; ${preview.updated === 0 ? 'all of them already have this owner' : `${count} will change`}.`
              : 'Counting…'}
      </p>
      <FormError error={save.error} />
    </ConfirmDialog>
  );
}
