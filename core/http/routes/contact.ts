import { createRoute, z } from '@hono/zod-openapi';
import { CONTACT_HOLD_KINDS } from '../../contact/rule';
import { OVERRIDE_REASON_MAX } from '../../contact/override';
import { GRACE_DAYS_MAX, getContactSettings, getCustomerStop, setCustomerStop, STOP_REASON_MAX, updateContactSettings } from '../../contact/settings';
import { scopeOf } from '../context';
import { CompanyParams, createRouter, idParams, json, jsonBody, problems, SECURITY, Text, Timestamp } from '../openapi';

const TAGS = ['Extensions'];

/** "Send anyway" on any channel: through the holds the rule's answer showed, for this reason. */
export const OverrideReason = Text(OVERRIDE_REASON_MAX)
  .refine((s) => s.trim().length > 0, 'Say why it goes anyway')
  .optional()
  .openapi({ description: "Extension: send anyway, through the contact rule's holds shown before sending, for this reason; kept in the change log (contact_override). 403 override_forbidden when an owner forbids overriding one of them" });

const HoldKind = z.enum(CONTACT_HOLD_KINDS);

const ContactSettings = z
  .object({
    promise_grace_days: z.number().int().openapi({ description: 'A promise to pay holds the chase until its date plus these days' }),
    no_override: z.array(HoldKind).openapi({ description: 'Hold kinds nobody may send through ("Send anyway" refused)' }),
  })
  .openapi('ContactSettings');

const ContactSettingsUpdate = z
  .strictObject({
    promise_grace_days: z.number().int().min(0).max(GRACE_DAYS_MAX).optional(),
    no_override: z.array(HoldKind).max(CONTACT_HOLD_KINDS.length).optional(),
  })
  .openapi('ContactSettingsUpdate');

const CustomerStop = z
  .object({
    stop: z.enum(['paused', 'do_not_contact']).nullable().openapi({ description: 'paused: until a person lifts it; do_not_contact: never write to them; null: no stop' }),
    reason: z.string().nullable(),
    by: z.string().nullable().openapi({ description: 'Who set it' }),
    at: Timestamp.nullable(),
    words: z.string().nullable().openapi({ description: 'The hold as the contact rule names it' }),
  })
  .openapi('CustomerContactStop');

const CustomerStopUpdate = z
  .strictObject({
    stop: z.enum(['paused', 'do_not_contact']).nullable(),
    reason: Text(STOP_REASON_MAX).optional().openapi({ description: 'Needed to set a stop' }),
  })
  .openapi('CustomerContactStopUpdate');

const settingsPath = '/api/companies/{company_id}/contact-settings';
const stopPath = '/api/companies/{company_id}/customers/{customer_id}/contact-stop';

const getSettingsRoute = createRoute({ method: 'get', path: settingsPath, tags: TAGS, summary: "The company's contact settings", security: SECURITY, request: { params: CompanyParams }, responses: { 200: json(ContactSettings, 'The settings'), ...problems(401, 403, 404) } });
const putSettingsRoute = createRoute({
  method: 'patch',
  path: settingsPath,
  tags: TAGS,
  summary: "Change the company's contact settings (owners only)",
  description: '403 owner_only for anyone but an owner. Fields left out keep their value.',
  security: SECURITY,
  request: { params: CompanyParams, body: jsonBody(ContactSettingsUpdate) },
  responses: { 200: json(ContactSettings, 'The settings, changed'), ...problems(400, 401, 403, 404) },
});
const getStopRoute = createRoute({ method: 'get', path: stopPath, tags: TAGS, summary: "A person's stop on contacting the customer", security: SECURITY, request: { params: idParams('customer_id') }, responses: { 200: json(CustomerStop, 'The stop'), ...problems(401, 403, 404) } });
const putStopRoute = createRoute({
  method: 'put',
  path: stopPath,
  tags: TAGS,
  summary: 'Pause contact with the customer or mark them "do not contact" (with a reason), or lift it (stop: null)',
  description: 'Every channel that writes to the customer is held while it stands, the reason naming who and why.',
  security: SECURITY,
  request: { params: idParams('customer_id'), body: jsonBody(CustomerStopUpdate) },
  responses: { 200: json(CustomerStop, 'The stop as it now stands'), ...problems(400, 401, 403, 404) },
});

export function contactRoutes() {
  return createRouter()
    .openapi(getSettingsRoute, async (c) => c.json(toSettings(await getContactSettings(c.var.engine, scopeOf(c))), 200))
    .openapi(putSettingsRoute, async (c) => c.json(toSettings(await updateContactSettings(c.var.engine, { ...scopeOf(c), role: c.var.membership.role }, c.req.valid('json'))), 200))
    .openapi(getStopRoute, async (c) => c.json(await getCustomerStop(c.var.engine, scopeOf(c), c.req.valid('param').customer_id), 200))
    .openapi(putStopRoute, async (c) => c.json(await setCustomerStop(c.var.engine, scopeOf(c), c.req.valid('param').customer_id, c.req.valid('json')), 200));
}

function toSettings(s: { promiseGraceDays: number; noOverride: Array<(typeof CONTACT_HOLD_KINDS)[number]> }) {
  return { promise_grace_days: s.promiseGraceDays, no_override: s.noOverride };
}
