/**
 * Settings' one line on the customer portal (issue 39): whether customers can open the links in
 * their emails, and if not why, by this desktop's place in sync.
 */
export function portalLine(role: 'server' | 'replica' | null): string {
  if (role === 'server') return 'Customer portal: served here. Links in emails to customers open their invoices on this server.';
  if (role === 'replica') return 'Customer portal: served by the team server. The links in emails it sends to customers point there.';
  return 'Customer portal: not available to customers. This desktop serves it only on this computer (for a demo); connect to a team server, which serves it to them.';
}
