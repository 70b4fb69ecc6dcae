/**
 * The hook through which an email to a customer gets their portal link ({{portal_link}}), minted
 * at the moment it is sent. The portal lives above every sender (statements, sequences,
 * reminders, actions), so the composition root that serves the portal installs the maker
 * (core/runtime/server.ts); without one, no email carries a link.
 */
import { type CommandTx, type Engine, runCommand, systemActor } from '../engine';

/** Mints a link of the customer inside the send's command; null when this server serves no portal. */
export type PortalLinkMaker = (tx: CommandTx, companyId: string, customerId: string) => Promise<string | null>;

let maker: PortalLinkMaker | null = null;

export function setPortalLinkMaker(next: PortalLinkMaker | null): void {
  maker = next;
}

export function portalLinkFor(tx: CommandTx, companyId: string, customerId: string): Promise<string | null> {
  return maker ? maker(tx, companyId, customerId) : Promise.resolve(null);
}

/** Whether emails sent here carry portal links (a preview then shows where the link will be). */
export function portalLinksServed(): boolean {
  return maker !== null;
}

/**
 * What a preview shows where the link a send mints goes: the placeholder itself, so a collector's
 * edit of the preview (sent as written) keeps it, and the send fills it.
 */
export const PORTAL_LINK_SAMPLE = '{{portal_link}}';

/** A link minted in a command of its own, for a send that renders outside one (a reminder, a statement); null without a portal. */
export async function mintLinkForEmail(engine: Pick<Engine, 'db' | 'clock'>, companyId: string, customerId: string): Promise<string | null> {
  if (!maker) return null;
  const make = maker;
  return runCommand(engine, 'mint_portal_link', { companyId, actor: systemActor }, (tx) => make(tx, companyId, customerId));
}

/** The line an email adds for the link: where the customer sees and answers about their invoices. */
export function portalLinkLine(link: string): string {
  return `See your invoices, say when you will pay, ask a question or tell us you have paid: ${link}`;
}
