import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { authenticate } from '../../core/auth/sessions';
import { createApp } from '../../core/http/app';
import { currentLaunchToken, issueLaunchToken, LAUNCH_TOKEN_NAME, localUser, revokeLaunchToken, revokeLeftoverLaunchTokens } from '../../electron/launch';
import { addCompany, addUser, type App, call, loginAs } from '../support/api';
import { type TestEngine, testEngine } from '../support/engine';

// The desktop shell's per-launch token (electron/launch.ts has no electron import, so it runs here).
describe('desktop launch token', () => {
  let engine: TestEngine;
  let app: App;

  beforeEach(async () => {
    engine = await testEngine('2026-11-23T12:00:00.000Z');
    app = createApp(engine);
  });
  afterEach(() => engine.dispose());

  it('has no token to hand out on a first launch (no user yet)', async () => {
    expect(await localUser(engine)).toBeNull();
    expect(await issueLaunchToken(engine)).toBeNull();
  });

  it('issues a one-day token for the user who signed in last, and it works on the API', async () => {
    const company = await addCompany(engine, 'Acme Supply');
    await addUser(engine, 'first', [[company, 'owner']]);
    const second = await addUser(engine, 'second', [[company, 'collector']]);
    engine.clock.set('2026-11-23T12:05:00.000Z');
    await loginAs(app, 'second');
    const launch = (await issueLaunchToken(engine))!;
    expect(launch.expiresAt).toBe('2026-11-24T12:05:00.000Z');
    const me = await call(app, 'GET', '/api/v1/auth/me/', { token: launch.token });
    expect(me.status).toBe(200);
    expect(me.body.user.id).toBe(second);
  });

  it('falls back to the first user created when nobody has signed in', async () => {
    const company = await addCompany(engine, 'Acme Supply');
    const first = await addUser(engine, 'first', [[company, 'owner']]);
    engine.clock.set('2026-11-23T12:01:00.000Z');
    await addUser(engine, 'second', [[company, 'owner']]);
    expect(await localUser(engine)).toEqual({ id: first });
  });

  it('keeps the token while it has more than an hour left, then replaces and revokes it', async () => {
    const company = await addCompany(engine, 'Acme Supply');
    await addUser(engine, 'demo', [[company, 'owner']]);
    const launch = (await issueLaunchToken(engine))!;
    engine.clock.set('2026-11-24T10:00:00.000Z');
    expect(await currentLaunchToken(engine, launch)).toBe(launch);
    engine.clock.set('2026-11-24T11:30:00.000Z');
    const renewed = (await currentLaunchToken(engine, launch))!;
    expect(renewed.token).not.toBe(launch.token);
    expect(await authenticate(engine, launch.token)).toBeNull();
    expect(await authenticate(engine, renewed.token)).not.toBeNull();
  });

  it('revokes its token on quit, and a crashed launch’s token at the next start', async () => {
    const company = await addCompany(engine, 'Acme Supply');
    await addUser(engine, 'demo', [[company, 'owner']]);
    const quit = (await issueLaunchToken(engine))!;
    await revokeLaunchToken(engine, quit);
    expect(await authenticate(engine, quit.token)).toBeNull();
    const crashed = (await issueLaunchToken(engine))!;
    const login = await loginAs(app, 'demo');
    expect(await revokeLeftoverLaunchTokens(engine)).toBe(1);
    expect(await authenticate(engine, crashed.token)).toBeNull();
    expect(await authenticate(engine, login)).not.toBeNull();
    const names = await engine.db.selectFrom('api_tokens').select('name').where('revoked_at', 'is', null).execute();
    expect(names.map((n) => n.name)).not.toContain(LAUNCH_TOKEN_NAME);
  });
});
