/**
 * Names and areas of operations in the OpenAPI document, derived from method and path so that a
 * generated client gets stable, readable names (`listInvoices`, `approveAction`) without each route
 * repeating them. A route that sets its own `operationId` or area keeps it.
 */

const PREFIXES = [/^\/api\/companies\/\{company_id\}\//, /^\/api\/v1\//, /^\/api\//];

/** Words that are not plurals though they end in "s". */
const UNCOUNTABLE = new Set(['analytics', 'settings', 'metrics', 'details', 'summary', 'status', 'limits', 'events', 'sync', 'health', 'access']);

/** Names the rule would get wrong or make clumsy; keyed by "METHOD path". */
const NAMED: Record<string, string> = {
  'POST /api/v1/auth/login/': 'login',
  'POST /api/v1/auth/logout/': 'logout',
  'GET /api/v1/auth/me/': 'getCurrentUser',
  'GET /api/v1/setup/': 'getSetupState',
  'POST /api/v1/setup/account/': 'createFirstAccount',
  'POST /api/v1/setup/connect/': 'connectToTeamServer',
  'POST /api/v1/setup/demo/': 'openDemoWorkspace',
  'GET /api/companies/{company_id}/settings': 'getCompanySettings',
  'PATCH /api/companies/{company_id}/settings': 'updateCompanySettings',
  'PATCH /api/companies/{company_id}/invoices/bulk': 'bulkUpdateInvoices',
  'POST /api/companies/{company_id}/invoices/bulk/reminder-preview': 'previewBulkReminders',
  'POST /api/companies/{company_id}/invoices/bulk/send-reminders': 'sendBulkReminders',
  'POST /api/companies/{company_id}/intelligence/insights/{pk}/feedback': 'giveInsightFeedback',
  'POST /api/companies/{company_id}/ar-aging/report-export': 'exportArAgingReport',
  'POST /api/companies/{company_id}/customers/assign-ar-owner': 'assignArOwners',
  'POST /api/companies/{company_id}/email-connections/{connection_id}/trusted-certificates': 'trustEmailConnectionCertificate',
  'DELETE /api/companies/{company_id}/email-connections/{connection_id}/trusted-certificates/{server}': 'revokeEmailConnectionCertificate',
  'POST /api/companies/{company_id}/email-connections/{connection_id}/sync-replies': 'fetchEmailConnectionReplies',
  'GET /api/companies/{company_id}/sequences/queue': 'listQueueSteps',
  'GET /api/companies/{company_id}/sequences/queue/{scheduled_step_id}': 'getQueueStep',
  'GET /api/companies/{company_id}/sequences/queue/{scheduled_step_id}/preview': 'previewQueueStep',
  'POST /api/companies/{company_id}/sequences/queue/{scheduled_step_id}/send': 'sendQueueStep',
  'POST /api/companies/{company_id}/sequences/queue/{scheduled_step_id}/complete': 'completeQueueStep',
  'POST /api/companies/{company_id}/sequences/queue/{scheduled_step_id}/skip': 'skipQueueStep',
  'POST /api/companies/{company_id}/sequences/queue/{scheduled_step_id}/snooze': 'snoozeQueueStep',
  'POST /api/companies/{company_id}/sequences/queue/{scheduled_step_id}/edit': 'editQueueStep',
  'POST /api/companies/{company_id}/sequences/{sequence_id}': 'activateOrArchiveSequence',
  'POST /api/companies/{company_id}/sequences/{sequence_id}/enrollments/bulk': 'bulkEnrollInSequence',
  'POST /api/companies/{company_id}/communications/{communication_id}/reading': 'correctReplyReading',
  'POST /api/v1/sync/server-companies': 'listTeamServerCompanies',
  'POST /api/v1/sync/now': 'syncNow',
  'POST /api/v1/sync/resync': 'resync',
  'POST /api/v1/sync/connect': 'connectSync',
  'POST /api/v1/sync/disconnect': 'disconnectSync',
};

/** Words of a path segment: "email-connections" -> ["email", "connections"], "statement.pdf" -> ["statement", "pdf"]. */
const words = (segment: string) => segment.split(/[-_.]/).filter(Boolean);
const cap = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);
const isParam = (segment: string) => segment.startsWith('{');

export function isPlural(segment: string): boolean {
  const last = words(segment).at(-1) ?? '';
  return last.endsWith('s') && !last.endsWith('ss') && !UNCOUNTABLE.has(last);
}

export function singular(segment: string): string {
  if (!isPlural(segment)) return segment;
  const w = words(segment);
  const last = w.pop()!;
  const one = last.endsWith('ies') ? `${last.slice(0, -3)}y` : /(ches|shes|xes|sses)$/.test(last) ? last.slice(0, -2) : last.slice(0, -1);
  return [...w, one].join('-');
}

const pascal = (segments: string[]) => segments.flatMap(words).map(cap).join('');

const VERB_BY_METHOD: Record<string, string> = { GET: 'get', PATCH: 'update', PUT: 'replace', DELETE: 'delete', POST: 'post' };

/** `listInvoices`, `getInvoice`, `approveAction`, `createSequenceStep`, `getCustomerStatementPdf`. */
export function operationIdFor(method: string, path: string): string {
  const m = method.toUpperCase();
  const named = NAMED[`${m} ${path}`];
  if (named) return named;
  const rest = PREFIXES.reduce((p, prefix) => p.replace(prefix, ''), path);
  const segments = rest.split('/').filter(Boolean);
  const last = segments.at(-1) ?? '';
  // Every noun before the last segment names one thing (a parameter follows it, or it is a namespace).
  const nouns = segments.filter((s) => !isParam(s));
  const head = nouns.slice(0, -1).map(singular);
  if (isParam(last)) return VERB_BY_METHOD[m] + pascal([...head, singular(nouns.at(-1) ?? '')]);
  if (m === 'GET') return (isPlural(last) ? 'list' : 'get') + pascal([...head, last]);
  if (m === 'POST') {
    if (isPlural(last)) return `create${pascal([...head, singular(last)])}`;
    // A POST on a singular last segment is a verb on what precedes it: /actions/{id}/approve.
    const [verb, ...object] = words(last);
    return verb + pascal([...object, ...head]);
  }
  return VERB_BY_METHOD[m] + pascal([...head, last]);
}

const AREAS: Record<string, string> = {
  auth: 'Authentication',
  setup: 'Setup',
  companies: 'Companies',
  settings: 'Companies',
  members: 'Team',
  'team-members': 'Team',
  invoices: 'Invoices',
  actions: 'Actions',
  'action-tasks': 'Actions',
  intelligence: 'Intelligence',
  'ar-aging': 'Analytics',
  analytics: 'Analytics',
  payments: 'Payments',
  sequences: 'Sequences',
  'sequence-enrollments': 'Sequences',
  'email-health': 'Email',
  'email-connections': 'Email',
  imports: 'Imports',
  'import-mappings': 'Imports',
  'import-watch': 'Imports',
  'document-details': 'Documents',
  'statement-runs': 'Documents',
};

/** The area an operation belongs to, for its tag: the first segment after the company (or /api/v1/). */
export function areaFor(path: string): string {
  const rest = PREFIXES.reduce((p, prefix) => p.replace(prefix, ''), path);
  const first = rest.split('/').find(Boolean) ?? '';
  return AREAS[first] ?? cap(words(first).join(' '));
}
