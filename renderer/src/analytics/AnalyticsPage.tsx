import { useCallback, useState } from 'react';
import { useLoad } from '../components/useLoad';
import { localToday } from '../desk/format';
import { api, useSession } from '../state/session';
import { AgingSection } from './AgingSection';
import { ForecastSection } from './ForecastSection';
import { MetricsSection } from './MetricsSection';
import { StaleLedgerBanner } from './StaleLedgerBanner';

/** What a manager reads every week: aging (of any date and over time), the details, the export, the collection metrics and the cash forecast. */
export default function AnalyticsPage({ companyId }: { companyId: string }) {
  // The company's as-of date (a ledger exported long ago) is where the page starts; today otherwise.
  const settings = useLoad((signal) => api.get('/api/companies/{company_id}/settings', { path: { company_id: companyId }, signal }), [companyId]);
  const [picked, setAsOf] = useState<string | null>(null);
  const settled = settings.data !== null || settings.error !== null;
  const asOf = picked ?? settings.data?.as_of_date ?? localToday();
  const role = useSession((s) => s.companies.find((c) => c.id === companyId)?.role);
  const [currency, setCurrency] = useState('USD');
  // The slow sections ask only once the aging has answered: the server answers one request at a time, so the aging total comes first.
  const [agingAnswered, setAgingAnswered] = useState(false);
  const onAgingAnswered = useCallback(() => setAgingAnswered(true), []);
  return (
    <div className="page">
      <header className="page-header">
        <h1>Analytics</h1>
      </header>
      <StaleLedgerBanner companyId={companyId} onAsOf={setAsOf} />
      {settled && (
        <>
          <AgingSection companyId={companyId} asOf={asOf} deskDate={settings.data?.as_of_date ?? localToday()} onAsOf={setAsOf} onCurrency={setCurrency} onAnswered={onAgingAnswered} canWrite={role !== 'viewer'} />
          <MetricsSection companyId={companyId} asOf={asOf} waiting={!agingAnswered} />
          <ForecastSection companyId={companyId} currency={currency} waiting={!agingAnswered} />
        </>
      )}
    </div>
  );
}
