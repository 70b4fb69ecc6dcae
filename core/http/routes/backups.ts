import { createRoute, z } from '@hono/zod-openapi';
import { backUpNow, dataFolder, requireOwnerOfAll } from '../../backups/backups';
import { createRouter, json, problems, SECURITY, Timestamp, withoutSlash } from '../openapi';

const BackupFile = z
  .object({ file_name: z.string(), path: z.string(), size_bytes: z.number().int(), created_at: Timestamp.openapi({ description: 'When the file was written' }) })
  .openapi('BackupFile');

const DataFolder = z
  .object({
    data_folder: z.string().openapi({ description: 'The folder that holds the database, its key and its backups' }),
    database_file: z.string(),
    database_size_bytes: z.number().int(),
    backups: z.array(BackupFile).openapi({ description: 'Backups beside the database (taken before each schema migration, by ardesk backup, or by POST), newest first' }),
  })
  .openapi('DataFolder');

const OWNER_OF_ALL = ' (only a user who owns every company in the database; extension)';

const listRoute = createRoute({
  method: 'get',
  path: '/api/v1/backups/',
  tags: ['Extensions'],
  summary: `The data folder and the backups in it${OWNER_OF_ALL}`,
  security: SECURITY,
  responses: { 200: json(DataFolder, 'The data folder'), ...problems(401, 403) },
});

const createBackupRoute = createRoute({
  method: 'post',
  path: '/api/v1/backups/',
  tags: ['Extensions'],
  summary: `Back up the database now, beside it${OWNER_OF_ALL}`,
  security: SECURITY,
  responses: { 201: json(BackupFile, 'The backup written'), ...problems(401, 403) },
});

export function backupRoutes() {
  const router = createRouter();
  for (const route of [listRoute, withoutSlash(listRoute)]) {
    router.openapi(route, async (c) => {
      await requireOwnerOfAll(c.var.engine.db, c.var.user.id);
      return c.json(dataFolder(c.var.engine), 200);
    });
  }
  for (const route of [createBackupRoute, withoutSlash(createBackupRoute)]) {
    router.openapi(route, async (c) => {
      await requireOwnerOfAll(c.var.engine.db, c.var.user.id);
      return c.json(await backUpNow(c.var.engine), 201);
    });
  }
  return router;
}
