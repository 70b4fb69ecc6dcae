import type { Engine } from '../engine';
import { closestNames } from './closest';
import { UsageError } from './options';

export { closestNames };

/** The refusal for a company name or id that matches none: with the closest names, if any. */
export function unknownCompany(typed: string, names: string[], hint = ''): UsageError {
  const close = closestNames(typed, names);
  const suggestion = close.length ? `; did you mean ${close.map((n) => `"${n}"`).join(', ')}?` : names.length ? '' : ' (there are no companies yet)';
  return new UsageError(`no company ${typed}${suggestion}${hint}`);
}

/** The one company whose id or exact name is given (--company), else a usage error naming the closest. */
export async function findCompany(engine: Pick<Engine, 'db'>, nameOrId: string, hint = ''): Promise<{ id: string; name: string }> {
  const companies = await engine.db.selectFrom('companies').select(['id', 'name']).execute();
  const found = companies.filter((c) => c.id === nameOrId.toLowerCase() || c.name === nameOrId);
  if (found.length > 1) throw new UsageError(`${found.length} companies are named ${nameOrId}; give its id (ardesk company list)`);
  if (!found.length) throw unknownCompany(nameOrId, companies.map((c) => c.name), hint);
  return found[0];
}
