import type { Engine } from '../engine';
import { UsageError } from './options';

/** The one company whose id or exact name is given (--company), else a usage error. */
export async function findCompany(engine: Pick<Engine, 'db'>, nameOrId: string): Promise<{ id: string; name: string }> {
  const found = await engine.db
    .selectFrom('companies')
    .select(['id', 'name'])
    .where((eb) => eb.or([eb('id', '=', nameOrId.toLowerCase()), eb('name', '=', nameOrId)]))
    .execute();
  if (found.length !== 1) throw new UsageError(found.length ? `${found.length} companies are named ${nameOrId}; give its id` : `no company ${nameOrId}`);
  return found[0];
}
