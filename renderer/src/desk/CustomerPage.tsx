import { useCallback, useState } from 'react';
import { ErrorBox } from '../components/ErrorBox';
import { LogContactButton } from '../components/LogContact';
import { CustomerDocumentActions } from '../documents/CustomerDocumentActions';
import { useAfterPaint } from '../components/useAfterPaint';
import { useLoad } from '../components/useLoad';
import { ContactStop } from '../customers/ContactStop';
import { CustomerSections } from '../customers/CustomerSections';
import { ArOwnerSelect } from '../customers/OwnerAssign';
import { companyPath, useRoute } from '../state/route';
import { api, useSession } from '../state/session';
import { usePageTitle } from '../state/title';
import './ag';
import { customerFilters, type DeskFilters, toSearch } from './filters';
import { formatCount, formatMoney, formatTimestamp } from './format';
import { InvoiceGrid } from './InvoiceGrid';
import { ChaseStatus } from './PanelDisputes';

/** One customer: totals, contacts, owners and locations, all of its invoices, and its history below. */
export default function CustomerPage({ companyId, customerId }: { companyId: string; customerId: string }) {
  const navigate = useRoute((s) => s.navigate);
  const [filters, setFilters] = useState<DeskFilters>(customerFilters(customerId));
  const [logged, setLogged] = useState(0);
  const customer = useLoad((signal) => api.get('/api/companies/{company_id}/customers/{customer_id}', { path: { company_id: companyId, customer_id: customerId }, signal }), [companyId, customerId]);

  const onOpen = useCallback(
    (id: string) => navigate(companyPath(companyId, 'invoices', id, toSearch(customerFilters(customerId)))),
    [companyId, customerId, navigate],
  );
  const onCustomer = useCallback((id: string) => navigate(companyPath(companyId, 'customers', id)), [companyId, navigate]);
  const c = customer.data;
  const canWrite = useSession((s) => s.companies.find((co) => co.id === companyId)?.role !== 'viewer');
  usePageTitle(c?.name);
  // The invoice grid's set-up and first rows hold the main thread for a few hundred ms: it mounts
  // once the header has drawn, after the sections (the communications timeline) asked for their
  // data and, most often, drew it.
  const gridMounts = useAfterPaint(c !== null || customer.error !== null);

  return (
    <div className="customer-page">
      <nav className="crumbs" aria-label="Breadcrumb">
        <a
          href={companyPath(companyId, 'invoices')}
          onClick={(e) => {
            e.preventDefault();
            window.history.length > 1 ? window.history.back() : navigate(companyPath(companyId, 'invoices'));
          }}
        >
          ← Invoices
        </a>
      </nav>
      {customer.error !== null && <ErrorBox what="the customer" error={customer.error} onRetry={customer.reload} />}
      {!c && customer.error === null && <p className="muted">Loading…</p>}
      {c && (
        <>
          <header className="customer-header">
            <div>
              <h1 data-testid="customer-name">{c.name}</h1>
              <div className="muted">
                {c.is_person ? 'Person' : 'Company'} · {c.currency} · net {c.payment_terms_days} days{c.remote_id ? ` · ${c.remote_id}` : ''}
              </div>
              {c.last_reply_at && <div data-testid="customer-last-reply">Last replied by email {formatTimestamp(c.last_reply_at)}</div>}
              <ChaseStatus companyId={companyId} customerId={c.id} version={logged} />
              <ContactStop companyId={companyId} customerId={c.id} customerName={c.name} canWrite={canWrite} onChanged={() => setLogged((n) => n + 1)} />
            </div>
            <LogContactButton
              companyId={companyId}
              customerId={c.id}
              customerName={c.name}
              onLogged={() => {
                customer.reload();
                setLogged((n) => n + 1);
              }}
            />
            <CustomerDocumentActions companyId={companyId} customerId={c.id} customerName={c.name} />
            <div className="kpis">
              <div className="kpi">
                <div className="kpi-label">Open balance</div>
                <div className="kpi-value">{formatMoney(c.balance.open_balance, c.currency)}</div>
                <div className="kpi-sub muted">{formatCount(c.balance.open_invoice_count)} open invoices</div>
              </div>
              <div className="kpi">
                <div className="kpi-label">Overdue</div>
                <div className={c.balance.overdue_balance > 0 ? 'kpi-value bad' : 'kpi-value'}>{formatMoney(c.balance.overdue_balance, c.currency)}</div>
                <div className="kpi-sub muted">{formatCount(c.balance.overdue_invoice_count)} overdue invoices</div>
              </div>
            </div>
          </header>
          <div className="customer-facts">
            <section>
              <h2>Owners</h2>
              <dl className="fields">
                <div className="field">
                  <dt>AR owner</dt>
                  <dd>
                    <ArOwnerSelect companyId={companyId} customerId={c.id} current={c.ar_owner?.id ?? null} canWrite={canWrite} onSaved={customer.reload} />
                  </dd>
                </div>
                <div className="field">
                  <dt>Sales owner</dt>
                  <dd>{c.sales_owner?.name ?? <span className="muted">Unassigned</span>}</dd>
                </div>
              </dl>
            </section>
            <section>
              <h2>Contacts</h2>
              {c.contacts.length === 0 ? (
                <p className="muted">No contacts.</p>
              ) : (
                <ul className="contacts">
                  {c.contacts.map((p) => (
                    <li key={p.id}>
                      <strong>{p.name}</strong>
                      {p.is_billing && <span className="pill">billing</span>}
                      {p.title && <span className="muted"> · {p.title}</span>}
                      <div className="muted small">
                        {p.email && <a href={`mailto:${p.email}`}>{p.email}</a>}
                        {p.email && p.phone && ' · '}
                        {p.phone}
                      </div>
                      {p.email_failing && <div className="small bad">Mail to this address bounces</div>}
                    </li>
                  ))}
                </ul>
              )}
            </section>
            <section>
              <h2>Locations</h2>
              {c.locations.length === 0 ? (
                <p className="muted">No locations.</p>
              ) : (
                <ul className="contacts">
                  {c.locations.map((l) => (
                    <li key={l.id}>
                      <strong>{l.name}</strong>
                      <div className="muted small">{[l.address_line1, l.city, l.region, l.postal_code, l.country].filter(Boolean).join(', ')}</div>
                    </li>
                  ))}
                </ul>
              )}
            </section>
            {c.notes && (
              <section>
                <h2>Notes</h2>
                <p>{c.notes}</p>
              </section>
            )}
          </div>
        </>
      )}
      <h2 className="section-title">Invoices</h2>
      <div className="customer-grid">
        {gridMounts && <InvoiceGrid companyId={companyId} filters={filters} onFilters={setFilters} onOpen={onOpen} onCustomer={onCustomer} embedded />}
      </div>
      {(c || customer.error === null) && (
        <CustomerSections
          companyId={companyId}
          customerId={customerId}
          customer={c}
          version={logged}
          onSaved={() => {
            customer.reload();
            setLogged((n) => n + 1);
          }}
        />
      )}
    </div>
  );
}
